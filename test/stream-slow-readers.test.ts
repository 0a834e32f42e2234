// Clients that read a little, often enough never to be idle (STREAM_IDLE_TIMEOUT_MS), must not keep the
// export places: STREAM_MIN_RATE ends them, and one address never holds every place. Clients that read
// at full speed are not touched.
import http from 'node:http';
import pg from 'pg';
import { createToken } from '../src/auth/tokens';
import { poolSettles, serve, testApp, testAppWithAuth, type TestApp } from './support/app';
import { useDatabase } from './support/databases';
import { eventually, holdsFor } from './support/wait';

jest.setTimeout(60000);

interface Reader {
  /** The answer's status once its headers are in. */
  status: Promise<number>;
  /** Settles when the client has seen the answer end: its bytes, and whether it was cut before its end. */
  done: Promise<{ bytes: number; cut: boolean; ms: number }>;
  abort: () => void;
}

/**
 * A client of `url` from the loopback address `from`: reads `chunk` bytes every `everyMs`, or (chunk 0)
 * all it is sent as fast as it comes.
 */
function reader(url: string, from: string, chunk: number, everyMs = 0, headers: Record<string, string> = {}): Reader {
  const began = Date.now();
  const req = http.get(url, { localAddress: from, agent: false, headers });
  req.on('error', () => undefined);
  let settle: (value: { bytes: number; cut: boolean; ms: number }) => void;
  const done = new Promise<{ bytes: number; cut: boolean; ms: number }>((resolve) => (settle = resolve));
  const status = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      resolve(res.statusCode ?? 0);
      let bytes = 0;
      res.on('error', () => undefined);
      let pace: NodeJS.Timeout | undefined;
      if (chunk) {
        // Paused: the socket's buffers fill, and the client takes `chunk` bytes at each tick.
        pace = setInterval(() => {
          const got = (res.read(chunk) ?? res.read()) as Buffer | null;
          bytes += got?.length ?? 0;
        }, everyMs);
      } else {
        res.on('data', (data: Buffer) => (bytes += data.length));
      }
      res.on('close', () => {
        clearInterval(pace);
        settle({ bytes, cut: !res.complete, ms: Date.now() - began });
      });
    });
  });
  req.on('close', () => settle?.({ bytes: 0, cut: true, ms: Date.now() - began }));
  return { status, done, abort: () => req.destroy() };
}

/** An app served on the slow readers' copy: three stream places, these settings beside the shared ones. */
function servedWith(env: Record<string, string>) {
  const served = {} as { t: TestApp; server: Awaited<ReturnType<typeof serve>> };
  beforeAll(async () => {
    await useDatabase('slowReaders');
    served.t = testApp('slowReaders', {
      DB_STREAM_POOL_MAX: '3',
      STREAMS_PER_TOKEN: '1000',
      // Idle never comes first: the slow readers take bytes four times a second.
      STREAM_IDLE_TIMEOUT_MS: '60000',
      STREAM_MIN_RATE_WINDOW_MS: '2000',
      DB_ACQUIRE_TIMEOUT_MS: '15000',
      ...env,
    });
    served.server = await serve(served.t.app);
  });
  afterAll(async () => {
    await served.server.close();
    await served.t.close();
  });
  return served;
}

describe('slow readers beside a normal client (STREAM_MIN_RATE)', () => {
  const served = servedWith({ STREAM_MIN_RATE: '262144' });

  it('ends the slow ones with their reason, and the normal client waiting for a place gets its export', async () => {
    // Three addresses at 32 kB/s each take every place of the pool.
    const slow = ['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((from) => reader(`${served.server.base}/v2/patrollerchecks`, from, 8192, 250));
    try {
      expect(await Promise.all(slow.map((s) => s.status))).toEqual([200, 200, 200]);
      const normal = reader(`${served.server.base}/v2/patrollerchecks`, '127.0.0.1', 0);
      expect(await normal.status).toBe(200);
      const whole = await normal.done;
      expect(whole.cut).toBe(false);
      expect(whole.bytes).toBeGreaterThan(5_000_000);

      // The slow ones are ended (they see it only once they have read what their socket's buffers hold).
      const lines = () => served.t.logs.filter((line) => line.includes('STREAM_MIN_RATE'));
      await eventually(() => lines().length === 3, { ms: 15000, what: 'the three slow readers ended' });
      for (const line of lines())
        expect(line).toMatch(
          /^\[[0-9a-f-]{36}\] GET \/v2\/patrollerchecks -> 499: client took \d+ bytes in \d+ ms \(\d+ bytes\/s, under STREAM_MIN_RATE 262144\), so its answer was ended$/,
        );
      await poolSettles(served.t.streamPool);
    } finally {
      for (const s of slow) s.abort();
    }
  });

  it('leaves fast readers alone', async () => {
    const before = served.t.logs.length;
    const fast = await Promise.all(
      ['127.0.0.5', '127.0.0.6'].map((from) => reader(`${served.server.base}/v2/patrollerchecks`, from, 0).done),
    );
    for (const read of fast) {
      expect(read.cut).toBe(false);
      expect(read.bytes).toBeGreaterThan(5_000_000);
    }
    expect(served.t.logs.slice(before).filter((line) => line.includes('-> 499'))).toEqual([]);
  });

  it('keeps one place from any one address, whatever its tokens', async () => {
    const held = [
      reader(`${served.server.base}/v2/patrollerchecks`, '127.0.0.7', 1, 1000),
      reader(`${served.server.base}/v2/patrollerchecks`, '127.0.0.7', 1, 1000),
    ];
    try {
      expect(await Promise.all(held.map((h) => h.status))).toEqual([200, 200]);
      const third = await new Promise<{ status: number; body: string }>((resolve) => {
        http.get(`${served.server.base}/v2/assign-list`, { localAddress: '127.0.0.7', agent: false }, (res) => {
          let body = '';
          res.on('data', (data: Buffer) => (body += data.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
      });
      expect(third.status).toBe(429);
      expect(JSON.parse(third.body).detail).toMatch(/^This address already has 2 downloads running/);
      // Another address gets the place left.
      const other = reader(`${served.server.base}/v2/assign-list`, '127.0.0.8', 0);
      expect(await other.status).toBe(200);
      expect((await other.done).cut).toBe(false);
    } finally {
      for (const h of held) h.abort();
      await eventually(() => served.t.streamPool.totalCount === served.t.streamPool.idleCount, { what: 'the places given back' });
    }
  });
});

describe('slow readers while other exports wait (STREAM_MIN_RATE_BUSY)', () => {
  const served = servedWith({ STREAM_MIN_RATE: '0', STREAM_MIN_RATE_BUSY: '262144' });

  it('keeps them while nobody waits, and ends them for a client that waits for a place', async () => {
    const slow = ['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((from) => reader(`${served.server.base}/v2/patrollerchecks`, from, 8192, 250));
    const ended = () => served.t.logs.filter((line) => line.includes('STREAM_MIN_RATE_BUSY'));
    try {
      expect(await Promise.all(slow.map((s) => s.status))).toEqual([200, 200, 200]);
      // Past two windows, nobody waiting: each keeps its place, whatever its rate.
      await holdsFor(() => ended().length === 0 && !served.t.logs.some((line) => line.includes('-> 499')), 4500, {
        what: 'the slow readers kept',
      });

      const began = Date.now();
      const normal = reader(`${served.server.base}/v2/patrollerchecks`, '127.0.0.1', 0);
      expect(await normal.status).toBe(200);
      expect(Date.now() - began).toBeLessThan(3000);
      expect((await normal.done).cut).toBe(false);
      expect(ended().length).toBeGreaterThanOrEqual(1);
      for (const line of ended())
        expect(line).toMatch(
          /^\[[0-9a-f-]{36}\] GET \/v2\/patrollerchecks -> 499: client took \d+ bytes in \d+ ms \(\d+ bytes\/s, under STREAM_MIN_RATE_BUSY 262144 while other exports waited\), so its answer was ended$/,
        );
    } finally {
      for (const s of slow) s.abort();
      await eventually(() => served.t.streamPool.totalCount === served.t.streamPool.idleCount, {
        ms: 10000,
        what: 'the places given back',
      });
    }
  });
});

describe('one token from several addresses', () => {
  it('keeps one place from it too, whatever STREAMS_PER_TOKEN says', async () => {
    const url = await useDatabase('slowReaders');
    const setup = new pg.Client(url);
    await setup.connect();
    const [a, b] = [await createToken(setup, { name: `cap-a-${process.pid}` }), await createToken(setup, { name: `cap-b-${process.pid}` })];
    await setup.end();
    const t = await testAppWithAuth('slowReaders', { DB_STREAM_POOL_MAX: '3', STREAMS_PER_TOKEN: '1000' });
    const server = await serve(t.app);
    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    const held = ['127.0.0.20', '127.0.0.21'].map((from) => reader(`${server.base}/v2/patrollerchecks`, from, 1, 1000, as(a.token)));
    try {
      expect(await Promise.all(held.map((h) => h.status))).toEqual([200, 200]);
      const third = await new Promise<{ status: number; body: string }>((resolve) => {
        http.get(`${server.base}/v2/assign-list`, { localAddress: '127.0.0.22', agent: false, headers: as(a.token) }, (res) => {
          let body = '';
          res.on('data', (data: Buffer) => (body += data.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
      });
      expect(third.status).toBe(429);
      expect(JSON.parse(third.body).detail).toMatch(/^This API token already has 2 downloads running/);
      const other = reader(`${server.base}/v2/assign-list`, '127.0.0.23', 0, 0, as(b.token));
      expect(await other.status).toBe(200);
      expect((await other.done).cut).toBe(false);
    } finally {
      for (const h of held) h.abort();
      await eventually(() => t.streamPool.totalCount === t.streamPool.idleCount, { ms: 10000, what: 'the places given back' });
      await server.close();
      await t.close();
    }
  });
});
