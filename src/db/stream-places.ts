import pg from 'pg';
import type { SharedPlaces } from '../http/stream-limit';
import { APPLICATION_NAME } from './pool';

// Place `slot` of a key is a session-level advisory lock on the primary: held by one connection of one
// process, and released by PostgreSQL itself when that connection ends, as when the process dies.
const LOCK = `SELECT pg_try_advisory_lock(hashtext('rider-equipment-stream:' || $1), $2) AS ok`;
const UNLOCK = `SELECT pg_advisory_unlock(hashtext('rider-equipment-stream:' || $1), $2)`;

interface Session {
  client: Promise<pg.PoolClient>;
  /** Places held on it, and takes under way. */
  held: number;
  /** Its connection ended: its locks went with it. */
  lost: boolean;
  /** Its listener for the connection's loss, there only while the session has the connection. */
  onError?: () => void;
  /** The last statement sent on it: each waits for the one before (one statement at a time per client). */
  last: Promise<unknown>;
}

/** Runs `text` on the session's connection once the statement before it has ended. */
function inTurn(session: Session, text: string, values: unknown[]): Promise<pg.QueryResult> {
  const run = session.last.then(() => session.client).then((client) => client.query(text, values));
  session.last = run.catch(() => undefined);
  return run;
}

/**
 * STREAMS_PER_TOKEN across every process and instance: the places of all keys are advisory locks
 * held on one connection of this process to the primary, open only while it holds any (so an idle
 * process keeps no connection, and a test or a command can exit). A connection lost takes its locks
 * with it; the streams running then still count in their own process until they end.
 */
export class AdvisoryPlaces implements SharedPlaces {
  private readonly pool: pg.Pool;
  private current?: Session;

  constructor(url: string) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: 1,
      idleTimeoutMillis: 1000,
      allowExitOnIdle: true,
      connectionTimeoutMillis: 5000,
      application_name: `${APPLICATION_NAME}/stream-places`,
    });
    this.pool.on('error', () => undefined); // an idle connection lost: the next take opens another
  }

  async take(key: string, slot: number): Promise<(() => void) | undefined> {
    const session = (this.current ??= this.open());
    session.held += 1;
    let taken = false;
    try {
      taken = (await inTurn(session, LOCK, [key, slot])).rows[0].ok === true;
    } finally {
      if (!taken) this.done(session);
    }
    if (!taken) return undefined;
    return () => {
      void (session.lost ? Promise.resolve() : inTurn(session, UNLOCK, [key, slot]))
        .catch(() => undefined)
        .finally(() => this.done(session));
    };
  }

  end(): Promise<void> {
    return this.pool.end();
  }

  private open(): Session {
    const session: Session = { client: this.pool.connect(), held: 0, lost: false, last: Promise.resolve() };
    const lose = () => {
      session.lost = true;
      if (this.current === session) this.current = undefined;
    };
    session.client.then((client) => {
      session.onError = () => {
        if (session.lost) return; // released already, at its first error
        lose();
        client.release(true);
      };
      client.on('error', session.onError);
    }, lose);
    return session;
  }

  /** One place (or one take) less; with none left, the connection goes back, and closes when idle. */
  private done(session: Session): void {
    session.held -= 1;
    if (session.held > 0 || session.lost) return;
    if (this.current === session) this.current = undefined;
    // Back in the pool, the connection is the pool's: a loss while idle is the pool's 'error' (see the
    // constructor), not a second release of this client.
    void session.client.then(
      (client) => {
        if (session.onError) client.removeListener('error', session.onError);
        client.release();
      },
      () => undefined,
    );
  }
}
