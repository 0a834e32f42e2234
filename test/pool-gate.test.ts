// The pool's places (src/db/pool.ts): a connection's place is taken before pg-pool is asked and given back
// when pg-pool has the connection back, however it was released; a checked-out connection whose server
// ends it between statements does not end the process.
import type pg from 'pg';
import { ClientGone, Pool, PoolTimeout } from '../src/db/pool';
import { eventually } from './support/wait';

jest.setTimeout(30000);

let pool: Pool;
const held = new Set<pg.PoolClient>();

beforeAll(() => {
  // A short wait for a place (300 ms) keeps the "no place is left" checks quick; opening a connection
  // has its own, longer bound, as on a busy machine PostgreSQL can take more than 300 ms to start a
  // backend (a new connection is opened after the server ends one below).
  pool = new Pool({ connectionString: process.env.TEST_ADMIN_URL!, max: 2, acquireTimeoutMs: 300, connectionTimeoutMillis: 10000 });
  pool.on('error', () => undefined); // an idle connection whose server went away (as createPool logs it)
});
// A test that fails while holding connections gives them back, so that the pool can end.
afterEach(() => {
  for (const client of held) {
    try {
      client.release();
    } catch {
      // already released by the test
    }
  }
  held.clear();
});
afterAll(() => pool.end());

/** A connection from the pool, given back after the test if the test did not. */
async function acquire(signal?: AbortSignal): Promise<pg.PoolClient> {
  const client = await pool.acquire(signal);
  held.add(client);
  return client;
}

/** Whether a third acquire gets a place within the timeout (released at once if it does). */
async function placeLeft(): Promise<boolean> {
  try {
    (await pool.acquire()).release();
    return true;
  } catch (error) {
    if (error instanceof PoolTimeout) return false;
    throw error;
  }
}

it('holds DB_POOL_MAX places, and a release of either kind gives one back to the longest waiter', async () => {
  const a = await acquire();
  const b = await acquire();
  expect(await placeLeft()).toBe(false); // both places are taken: the third waits, then times out
  const waiting = acquire();
  a.release();
  const c = await waiting; // the place passed straight to the waiter
  expect(await placeLeft()).toBe(false);
  b.release(new Error('discarded')); // released with an error: the connection goes, its place comes back
  c.release();
  expect(await placeLeft()).toBe(true);
  expect(pool.queued).toBe(0);
});

it('frees a place once for a connection released twice (the second release is refused)', async () => {
  const a = await acquire();
  const b = await acquire();
  a.release();
  expect(() => a.release()).toThrow(/already been released/);
  // One place is free, not two: the next acquire gets it, the one after waits.
  const c = await acquire();
  expect(await placeLeft()).toBe(false);
  b.release();
  c.release();
  expect(await placeLeft()).toBe(true);
});

it('starts nothing for a client that already left, and takes no place for it', async () => {
  const gone = new AbortController();
  gone.abort();
  await expect(pool.acquire(gone.signal)).rejects.toBeInstanceOf(ClientGone);
  const a = await acquire();
  const b = await acquire();
  a.release();
  b.release();
});

it('survives a checked-out connection that its server ends between statements', async () => {
  const client = await acquire();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  let heard = false;
  client.once('error', () => {
    heard = true;
  });
  const other = await acquire();
  await other.query('SELECT pg_terminate_backend($1)', [pid]);
  other.release();
  // The error arrives while the connection is checked out and idle: heard, the process carries on.
  await eventually(() => heard, { what: 'the ended connection’s error' });
  await expect(client.query('SELECT 1')).rejects.toThrow();
  client.release(new Error('its server ended it'));
  // Both places are free again, and the pool serves statements on fresh connections.
  const c = await acquire();
  const d = await acquire();
  expect((await c.query('SELECT 1 AS one')).rows[0].one).toBe(1);
  c.release();
  d.release();
});
