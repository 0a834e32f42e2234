import type { Request, Response } from 'express';
import type { TokenAccess } from '../auth/tokens';
import { HttpError, STREAM_RETRY_AFTER_S } from './errors';

/**
 * At most `perKey` unbounded streams (whole-table answers, CSV downloads) at once per API token or
 * admin session, so that one integrator or one browser tab cannot take every connection of the
 * stream pool. A place is held from the start of the answer until its statement has stopped.
 */
export class StreamLimit {
  private readonly open = new Map<string, number>();

  constructor(readonly perKey: number) {}

  /** Streams `key` has open now. */
  count(key: string): number {
    return this.open.get(key) ?? 0;
  }

  /** Takes one of `key`'s places, or throws a 429; returns the function that gives it back (once). */
  take(key: string, what: string): () => void {
    const held = this.count(key);
    if (held >= this.perKey) {
      throw new HttpError(
        429,
        `${what} already has ${held} download${held === 1 ? '' : 's'} running, the most allowed at once; wait for one to end, then try again.`,
        {
          type: 'too-many-streams',
          headers: { 'Retry-After': String(STREAM_RETRY_AFTER_S) },
        },
      );
    }
    this.open.set(key, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = this.count(key) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    };
  }

  /**
   * Runs one stream under `key`'s limit: the place is given back when `work` settles, which the
   * stream functions do only once the statement has stopped in PostgreSQL.
   */
  async run(key: string, what: string, work: () => Promise<void>): Promise<void> {
    const giveBack = this.take(key, what);
    try {
      await work();
    } finally {
      giveBack();
    }
  }
}

/** The API's key: the token, or the client's address when the API is open (AUTH=off). */
export function tokenKey(req: Request, res: Response): { key: string; what: string } {
  const access = res.locals.access as TokenAccess | undefined;
  return access ? { key: `token:${access.id}`, what: 'This API token' } : { key: `address:${req.ip}`, what: 'This address' };
}

/** The admin pages' key: the supervisor's session, or the client's address when sign-in is off. */
export function sessionKey(req: Request): { key: string; what: string } {
  const session = (req as Request & { sessionID?: string }).sessionID;
  return session ? { key: `session:${session}`, what: 'This session' } : { key: `address:${req.ip}`, what: 'This address' };
}
