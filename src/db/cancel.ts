// Stopping a statement in PostgreSQL when nobody waits for its answer any more.
import type { Readable } from 'node:stream';
import pg from 'pg';
import { APPLICATION_NAME } from './pool';

/** How long a cancelled statement may take to stop before its backend is terminated. */
export const CANCEL_GRACE_MS = 2000;
/** How long a terminated backend may take to close its connection before the place is given up anyway. */
const TERMINATE_GRACE_MS = 5000;

/** What pg keeps on a connected client and its types leave out. */
interface ClientInternals {
  processID: number | null;
  secretKey: number | null;
  host: string;
  port: number;
  readyForQuery: boolean;
  _ending: boolean;
  _connected: boolean;
  connectionParameters: { ssl?: unknown };
}

const internals = (client: pg.PoolClient) => client as unknown as ClientInternals;

/** The backend has answered ReadyForQuery with nothing left to run, or the connection is gone. */
function isIdle(client: pg.PoolClient): boolean {
  const c = internals(client);
  return c.readyForQuery || c._ending || !c._connected;
}

/** Resolves true once the client is idle (or its connection has closed), false after `ms`. */
export function becomesIdle(client: pg.PoolClient, ms: number): Promise<boolean> {
  if (isIdle(client)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (idle: boolean) => {
      clearTimeout(timer);
      client.off('drain', onIdle).off('end', onIdle);
      resolve(idle);
    };
    const onIdle = () => settle(true);
    const timer = setTimeout(() => settle(isIdle(client)), ms);
    client.once('drain', onIdle).once('end', onIdle);
  });
}

/**
 * PostgreSQL's cancel protocol: a new connection carrying only the backend's pid and secret key, so
 * it needs neither a pool place nor a sign-in. Resolves when the server has taken it (it then closes
 * the connection) or after a short bound.
 */
export function sendCancel(client: pg.PoolClient): Promise<void> {
  const { processID, secretKey, host, port, connectionParameters } = internals(client);
  if (processID === null || secretKey === null) return Promise.resolve();
  return new Promise((resolve) => {
    const con = new pg.Connection({ ssl: connectionParameters.ssl } as pg.ConnectionConfig) as pg.Connection & {
      connect: (port: number | string, host?: string) => void;
      cancel: (processID: number, secretKey: number) => void;
    };
    const done = () => {
      clearTimeout(timer);
      con.stream.destroy();
      resolve();
    };
    const timer = setTimeout(done, CANCEL_GRACE_MS);
    con.on('error', done).on('end', done);
    con.once('connect', () => con.cancel(processID, secretKey));
    if (host && host.startsWith('/')) con.connect(`${host}/.s.PGSQL.${port}`);
    else con.connect(port, host);
  });
}

/** The last resort, from a connection of its own outside every pool, to the same server: ends the backend process. */
async function terminate(client: pg.PoolClient, processID: number): Promise<void> {
  const { host, port, user, database, password, ssl } = (client as unknown as { connectionParameters: pg.ClientConfig })
    .connectionParameters;
  const killer = new pg.Client({
    host,
    port,
    user,
    database,
    password,
    ssl,
    connectionTimeoutMillis: CANCEL_GRACE_MS,
    application_name: `${APPLICATION_NAME}/stopper`,
  });
  killer.on('error', () => undefined);
  try {
    await killer.connect();
    await killer.query('SELECT pg_terminate_backend($1)', [processID]);
  } catch {
    // The server is unreachable: then the backend has no client to write to either.
  } finally {
    await killer.end().catch(() => undefined);
  }
}

/**
 * Stops the statement running on `client` and resolves once PostgreSQL has really stopped it: a
 * cancel request, then the rows still in flight are read and dropped (a COPY) or the cursor is
 * closed, until the backend is idle again. A backend that does not stop within CANCEL_GRACE_MS is
 * terminated, and its connection's end awaited.
 */
export async function stopStatement(client: pg.PoolClient, rows: Readable, drain: boolean): Promise<void> {
  if (isIdle(client)) return;
  const cancelled = sendCancel(client);
  if (drain) {
    // A COPY cannot be abandoned half-read: the backend would block writing to a socket nobody reads.
    rows.unpipe();
    rows.resume();
  } else {
    rows.destroy();
  }
  await cancelled;
  if (await becomesIdle(client, CANCEL_GRACE_MS)) return;
  const pid = internals(client).processID;
  if (pid !== null) await terminate(client, pid);
  await becomesIdle(client, TERMINATE_GRACE_MS);
}
