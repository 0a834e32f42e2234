// The stream pool's places against clients that stop reading: the idle timeout gives them back, and
// admin CSV downloads keep places of their own (DB_STREAM_POOL_ADMIN) that API exports cannot take.
import http from 'node:http';
import pg from 'pg';
import request from 'supertest';
import { createToken } from '../src/auth/tokens';
import { AdvisoryPlaces } from '../src/db/stream-places';
import { poolSettles, serve, testApp, testAppWithAuth, type TestApp } from './support/app';
import { testDatabases, useDatabase } from './support/databases';
import { expectProblem } from './support/expect';
import { eventually, holdsFor } from './support/wait';
import { databaseUrl } from './support/databases';

// A copy of the large demo, so that no other file's streams show in its activity.
const DATABASE = testDatabases().largeCopy;

let monitor: pg.Client;
beforeAll(async () => {
  await useDatabase('largeCopy');
  monitor = new pg.Client(process.env.TEST_ADMIN_URL);
  await monitor.connect();
});
afterAll(() => monitor.end());

/** Statements of the stream pool running now, and how many of them wait for their client to read. */
async function streaming(): Promise<{ running: number; clientWrite: number }> {
  const { rows } = await monitor.query(
    `SELECT count(*)::int AS running, count(*) FILTER (WHERE wait_event = 'ClientWrite')::int AS "clientWrite"
       FROM pg_stat_activity
      WHERE datname = $1 AND application_name = 'rider-equipment-service/streams' AND state = 'active'
        AND backend_type = 'client backend'`,
    [DATABASE],
  );
  return rows[0];
}

interface Stalled {
  /** The answer's status, once its headers are in; its body is then never read. */
  status: Promise<number>;
  abort: () => void;
}

/**
 * A client that reads an answer's headers and then stops reading, without hanging up; from another
 * loopback address when given (one address never holds every place of the pool).
 */
function stall(url: string, headers: Record<string, string> = {}, from?: string): Stalled {
  const req = http.get(url, { headers, ...(from ? { localAddress: from, agent: false } : {}) });
  req.on('error', () => undefined);
  const status = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.pause();
      res.on('error', () => undefined);
      resolve(res.statusCode ?? 0);
    });
  });
  return { status, abort: () => req.destroy() };
}

describe('clients that stop reading', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    t = testApp('largeCopy', {
      DB_STREAM_POOL_MAX: '10',
      DB_STREAM_POOL_ADMIN: '2',
      STREAMS_PER_TOKEN: '1000',
      STREAM_IDLE_TIMEOUT_MS: '6000',
      DB_ACQUIRE_TIMEOUT_MS: '1000',
    });
    server = await serve(t.app);
    // The stream pool's ten connections opened beforehand: the test is about places, and opening ten
    // at once on a busy machine can outlast the 1 s DB_ACQUIRE_TIMEOUT_MS it sets for a quick 503.
    const opened = await Promise.all(Array.from({ length: 10 }, () => t.streamPool.acquire()));
    for (const client of opened) client.release();
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  it('lose their places after STREAM_IDLE_TIMEOUT_MS; meanwhile exports get 503 streams-busy and admin CSVs are served', async () => {
    const stalled = Array.from({ length: 10 }, (_, i) => stall(`${server.base}/v2/patrollerchecks`, {}, `127.0.0.${2 + i}`));
    try {
      expect(await Promise.all(stalled.map((s) => s.status))).toEqual(Array(10).fill(200));
      await eventually(async () => (await streaming()).clientWrite === 10, { what: 'ten statements waiting in ClientWrite' });

      // Every API place is taken: the next export is refused, naming the cause, not the database.
      const refused = await request(server.base).get('/v2/assign-list');
      const body = expectProblem(refused, 503);
      expect(body.type).toBe('/problems/streams-busy');
      expect(body.detail).toBe('All export places are in use; try again in a few seconds.');
      expect(refused.headers['retry-after']).toBe('10');

      // The admin's own places: a whole CSV download while the API's are full.
      const csv = await request(server.base).get('/admin/equipment/assignments.csv').expect(200);
      expect(csv.text.split('\n').length).toBeGreaterThan(4000);

      // The idle timeout ends the ten answers (a client that reads nothing does not see it: it stopped
      // reading) and stops their statements.
      const idle = () => t.logs.filter((line) => line.includes('took no bytes'));
      await eventually(() => idle().length === 10, { ms: 10000, what: 'ten answers ended as idle' });
      expect((await streaming()).running).toBe(0);
      await poolSettles(t.streamPool);
      for (const line of idle())
        expect(line).toMatch(
          /^\[[0-9a-f-]{36}\] GET \/v2\/patrollerchecks -> 499: client took no bytes for 6000 ms, so its answer was ended$/,
        );

      // The places are free again.
      const whole = await request(server.base).get('/v2/assign-list').expect(200);
      expect(whole.body.length).toBeGreaterThan(1000);
    } finally {
      for (const s of stalled) s.abort();
    }
  });

  it('keep a slow client that goes on reading', async () => {
    const idleBefore = t.logs.filter((line) => line.includes('took no bytes')).length;
    const read = await new Promise<{ bytes: number; cut: boolean }>((resolve) => {
      const req = http.get(`${server.base}/v2/patrollerchecks`, (res) => {
        let bytes = 0;
        // Reads for 100 ms, then stops for 1 s, again and again: the answer is under backpressure most
        // of the time, but the client takes bytes (the socket's buffers drain) more often than every 4 s.
        res.on('data', (chunk: Buffer) => (bytes += chunk.length)).pause();
        const pace = setInterval(() => {
          res.resume();
          setTimeout(() => res.pause(), 100);
        }, 1100);
        res.on('close', () => clearInterval(pace));
        res.on('error', () => undefined);
        const timer = setTimeout(() => {
          resolve({ bytes, cut: false });
          req.destroy();
        }, 6000);
        // Closed before the client hung up, and not at the answer's end: cut by the server.
        res.on('close', () => {
          clearTimeout(timer);
          resolve({ bytes, cut: !res.complete });
        });
      });
      req.on('error', () => undefined);
    });
    // Read for 6 s (or to the end), past the 4 s timeout, without being cut.
    expect(read.cut).toBe(false);
    expect(read.bytes).toBeGreaterThan(2_000_000);
    expect(t.logs.filter((line) => line.includes('took no bytes'))).toHaveLength(idleBefore);
    await poolSettles(t.streamPool);
  });
});

describe('STREAMS_PER_TOKEN across processes (RATE_LIMIT_STORE=postgres)', () => {
  it("counts one token's streams in every process together, and frees the places of a process whose connection ends", async () => {
    const setup = new pg.Client(databaseUrl(process.env.TEST_ADMIN_URL!, DATABASE));
    await setup.connect();
    const { token } = await createToken(setup, { name: `shared-streams-${process.pid}` });
    await setup.end();
    const env = { RATE_LIMIT_STORE: 'postgres', STREAMS_PER_TOKEN: '2', DB_STREAM_POOL_MAX: '4' };
    // Two processes of one service, as far as PostgreSQL can tell: each app has its own connections.
    const apps = [await testAppWithAuth('largeCopy', env), await testAppWithAuth('largeCopy', env)];
    const servers = await Promise.all(apps.map((app) => serve(app.app)));
    const held: Stalled[] = [];
    const auth = { authorization: `Bearer ${token}` };
    const stallAt = (i: number) => {
      const s = stall(`${servers[i].base}/v2/patrollerchecks`, auth);
      held.push(s);
      return s.status;
    };
    try {
      // One stream in each process: the token's two places.
      expect(await stallAt(0)).toBe(200);
      expect(await stallAt(1)).toBe(200);
      for (const server of servers) {
        const refused = await request(server.base).get('/v2/assign-list').set(auth);
        expect(expectProblem(refused, 429).detail).toMatch(/This API token already has 2 downloads running/);
      }

      // The connection that holds place 0 ends (as when its process dies): the place is free for the
      // other process (the first still counts its own stream, which runs on, in its own count). It holds
      // the address's place 0 as well.
      const { rows } = await monitor.query(
        `SELECT pg_terminate_backend(pid) AS ended FROM (SELECT DISTINCT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database
          WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.objid = 0 AND d.datname = $1) holders`,
        [DATABASE],
      );
      expect(rows).toEqual([{ ended: true }]);
      await eventually(async () => (await stall2(servers[0].base)) === 200 || (await stall2(servers[1].base)) === 200, {
        what: 'a place freed by the ended connection',
      });
    } finally {
      for (const s of held) s.abort();
      await Promise.all(apps.map((app) => poolSettles(app.streamPool)));
      await Promise.all(servers.map((server) => server.close()));
      await Promise.all(apps.map((app) => app.close()));
    }

    /** One more stream in a process, kept open when it is admitted; its status. */
    async function stall2(base: string): Promise<number> {
      const s = stall(`${base}/v2/patrollerchecks`, auth);
      held.push(s);
      const status = await s.status;
      if (status !== 200) s.abort();
      return status;
    }
  });
});

describe('the shared places connection', () => {
  it('runs one statement at a time on it, however many places are taken and given back at once', async () => {
    const url = await useDatabase('fixture');
    const places = new AdvisoryPlaces(url);
    // pg queues a statement sent on a client while another runs on it, with a deprecation (pg 9 refuses it).
    const query = pg.Client.prototype.query;
    let overlapping = 0;
    const spy = jest.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const client = this as pg.Client & { activeQuery?: unknown; _queryQueue: unknown[] };
      if (client.activeQuery || client._queryQueue.length) overlapping++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    try {
      const key = `at-once-${process.pid}`;
      // Ten takes at once on the one connection, then all given back at once, then five more.
      const taken = await Promise.all(Array.from({ length: 10 }, (_, i) => places.take(key, 7700 + i)));
      expect(taken.every(Boolean)).toBe(true);
      for (const giveBack of taken) giveBack!();
      const again = await Promise.all(Array.from({ length: 5 }, (_, i) => places.take(key, 7700 + i)));
      expect(again.every(Boolean)).toBe(true);
      for (const giveBack of again) giveBack!();
      await eventually(() => spy.mock.calls.length >= 30, { what: 'every lock and unlock sent' });
      expect(overlapping).toBe(0);
    } finally {
      spy.mockRestore();
      await places.end();
    }
  });

  it("lost while idle in its pool (its places all given back) is the pool's to handle, and the next take opens another", async () => {
    const url = await useDatabase('fixture');
    const places = new AdvisoryPlaces(url);
    // A slot no other test takes, so that its lock names this test's connection alone.
    const slot = 7777;
    const holder = async () =>
      (
        await monitor.query(
          `SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database
            WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.objid = $1 AND d.datname = $2`,
          [slot, testDatabases().fixture],
        )
      ).rows.map((row) => row.pid as number);
    const crashes: unknown[] = [];
    const crash = (error: unknown) => crashes.push(error);
    process.on('uncaughtException', crash);
    try {
      const giveBack = await places.take(`idle-loss-${process.pid}`, slot);
      const [pid] = await holder();
      expect(pid).toEqual(expect.any(Number));
      giveBack!();
      await eventually(async () => (await holder()).length === 0, { what: 'the place given back' });
      // The connection, idle in the pool now (it closes after 1 s idle), ends as when its server restarts.
      await monitor.query('SELECT pg_terminate_backend($1)', [pid]);
      await eventually(async () => (await monitor.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0, {
        what: 'the connection ended',
      });
      await holdsFor(() => crashes.length === 0, 300, { what: 'no uncaught error' });
      // The next take works on a new connection.
      const again = await places.take(`idle-loss-${process.pid}`, slot);
      const [next] = await holder();
      expect(next).toEqual(expect.any(Number));
      expect(next).not.toBe(pid);
      again!();
      await eventually(async () => (await holder()).length === 0, { what: 'the second place given back' });
    } finally {
      process.off('uncaughtException', crash);
      await places.end();
    }
  });
});
