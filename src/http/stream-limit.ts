import type { Request, Response } from 'express';
import { HttpError, STREAM_RETRY_AFTER_S } from './errors';

/**
 * Places shared with every other process and instance of the service (db/stream-places.ts: advisory
 * locks on the primary). `take` resolves with the function that gives the place back, or undefined
 * when another process holds it; it rejects when the places cannot be reached.
 */
export interface SharedPlaces {
  take(key: string, slot: number): Promise<(() => void) | undefined>;
}

/**
 * At most `perKey` unbounded streams (whole-table answers, CSV downloads) at once per API token or
 * admin session, so that one integrator or one browser tab cannot take every connection of the
 * stream pool. A place is held from the start of the answer until its statement has stopped.
 *
 * Place i of a key is counted in this process and, with `shared`, held in PostgreSQL as well, so the
 * limit holds across processes and instances. With the shared places unreachable, this process's own
 * count decides alone (reported once a second through `onSharedError`).
 */
export class StreamLimit {
  /** The places of each key this process holds (or is taking), by number. */
  private readonly open = new Map<string, Set<number>>();

  constructor(
    readonly perKey: number,
    private readonly shared?: SharedPlaces,
    private readonly onSharedError: (error: unknown) => void = () => undefined,
  ) {}

  /** Streams `key` has open in this process now. */
  count(key: string): number {
    return this.open.get(key)?.size ?? 0;
  }

  /** Takes one of `key`'s places, or throws a 429; resolves with the function that gives it back (once). */
  async take(key: string, what: string): Promise<() => void> {
    const mine = this.open.get(key) ?? new Set<number>();
    this.open.set(key, mine);
    for (let slot = 0; slot < this.perKey; slot++) {
      if (mine.has(slot)) continue;
      mine.add(slot); // reserved here while PostgreSQL is asked, so a concurrent take tries the next
      let release: (() => void) | undefined = () => undefined;
      if (this.shared) {
        try {
          release = await this.shared.take(key, slot);
        } catch (error) {
          this.onSharedError(error);
        }
      }
      if (release) return this.giver(key, mine, slot, release);
      mine.delete(slot); // another process holds it
    }
    if (!mine.size) this.open.delete(key);
    const held = this.perKey;
    throw new HttpError(
      429,
      `${what} already has ${held} download${held === 1 ? '' : 's'} running, the most allowed at once; wait for one to end, then try again.`,
      { type: 'too-many-streams', headers: { 'Retry-After': String(STREAM_RETRY_AFTER_S) } },
    );
  }

  private giver(key: string, mine: Set<number>, slot: number, release: () => void): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      release();
      mine.delete(slot);
      if (!mine.size && this.open.get(key) === mine) this.open.delete(key);
    };
  }

  /**
   * Runs one stream under `key`'s limit: the place is given back when `work` settles, which the
   * stream functions do only once the statement has stopped in PostgreSQL.
   */
  async run(key: string, what: string, work: () => Promise<void>): Promise<void> {
    const giveBack = await this.take(key, what);
    try {
      await work();
    } finally {
      giveBack();
    }
  }
}

/** The API's key: the token, or the client's address when the API is open (AUTH=off). */
export function tokenKey(req: Request, res: Response): { key: string; what: string } {
  // The token's access (auth/tokens' TokenAccess), as the bearer check left it.
  const access = res.locals.access as { id: string } | undefined;
  return access ? { key: `token:${access.id}`, what: 'This API token' } : { key: `address:${req.ip}`, what: 'This address' };
}

/** The admin pages' key: the supervisor's session, or the client's address when sign-in is off. */
export function sessionKey(req: Request): { key: string; what: string } {
  const session = (req as Request & { sessionID?: string }).sessionID;
  return session ? { key: `session:${session}`, what: 'This session' } : { key: `address:${req.ip}`, what: 'This address' };
}
