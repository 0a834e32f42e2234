// WEB_CONCURRENCY: worker processes on one port, counting their rate limits together.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import pg from 'pg';
import { createToken } from '../src/auth/tokens';
import { useDatabase } from './support/databases';
import { buildOnce, exited, getText, withServer } from './support/server-process';
import { eventually } from './support/wait';

jest.setTimeout(90000);
beforeAll(buildOnce);

let token: string;
let tokenId: string;
let demo: pg.Client;
beforeAll(async () => {
  demo = new pg.Client(await useDatabase('demo'));
  await demo.connect();
  ({ token, id: tokenId } = await createToken(demo, { name: `cluster-${process.pid}` }));
});
afterAll(() => demo?.end());

/** The token's hits as flushed to the shared counts (0 when none is). */
async function sharedHits(): Promise<number> {
  const { rows } = await demo.query('SELECT coalesce(sum(hits), 0)::int AS hits FROM access.rate_limits WHERE key LIKE $1', [
    `%token:${tokenId}`,
  ]);
  return rows[0].hits;
}

/** Each request on a connection of its own, so that the workers take them in turn. */
function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

const workersOf = (pid: number) =>
  execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map(Number);

/**
 * 20 requests one after the other, `apartMs` apart, with the shared counts flushed every 20 ms. With the
 * postgres store, each next request waits until the last one's hit is in the shared counts (its worker
 * flushed), then `apartMs` for the other worker's own flushes to read it back: on a busy machine a flush
 * can take longer than a fixed pause.
 */
function limitRun(store: 'postgres' | 'memory', apartMs: number): Promise<number[]> {
  return withServer(
    { AUTH: 'on', WEB_CONCURRENCY: '2', API_RATE_LIMIT_PER_MINUTE: '10', RATE_LIMIT_STORE: store, RATE_LIMIT_FLUSH_MS: '20' },
    async ({ child, base }) => {
      await eventually(() => workersOf(child.pid!).length === 2, { what: 'two workers' });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        statuses.push(await get(`${base}/v2/questioner?country_id=1`));
        if (store === 'postgres') await eventually(async () => (await sharedHits()) === i + 1, { what: `hit ${i + 1} flushed` });
        await new Promise((resolve) => setTimeout(resolve, apartMs));
      }
      return statuses;
    },
  );
}

describe('WEB_CONCURRENCY=2', () => {
  it('counts a token’s rate limit across the workers: 10 a minute is 10 in all', async () => {
    // Counted in each process's memory, the same 20 requests get past the limit: the workers share them.
    const apart = await limitRun('memory', 60);
    expect(apart.filter((s) => s === 200).length).toBeGreaterThan(10);
    // Counted in PostgreSQL (the default), exactly 10 pass, whichever worker answers, when each worker
    // has flushed between two requests (docs/OPERATIONS.md, "Several processes": within one flush
    // interval the workers may together overshoot by what the other admitted).
    // 300 ms is 15 of the other worker's flush intervals: one starved for a moment still reads it back.
    const together = await limitRun('postgres', 300);
    expect(together.filter((s) => s === 200)).toHaveLength(10);
    expect(together.filter((s) => s === 429)).toHaveLength(10);
  });

  it('answers /metrics for all its workers together', async () => {
    const text = await withServer({ AUTH: 'on', WEB_CONCURRENCY: '2', API_RATE_LIMIT_PER_MINUTE: '1000' }, async ({ child, base }) => {
      await eventually(() => workersOf(child.pid!).length === 2, { what: 'two workers' });
      for (let i = 0; i < 12; i++) await get(`${base}/v2/questioner?country_id=1`);
      return getText(`${base}/metrics`);
    });
    // Whichever worker answered, the count is that of both.
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/v2\/questioner",status="200"\} 12$/m);
    expect(text).toMatch(/^db_database_in_rotation\{database="primary",role="primary"\} 1$/m);
  });

  it('replaces a worker that dies, and stops every worker and then itself on SIGTERM', () =>
    withServer({ WEB_CONCURRENCY: '2', SHUTDOWN_DRAIN_MS: '0' }, async ({ child, base, output }) => {
      await eventually(() => workersOf(child.pid!).length === 2, { what: 'two workers' });
      const [doomed] = workersOf(child.pid!);
      process.kill(doomed, 'SIGKILL');
      await eventually(() => workersOf(child.pid!).length === 2 && !workersOf(child.pid!).includes(doomed), {
        ms: 10000,
        what: 'a new worker',
      });
      await eventually(() => output().includes(`Worker ${doomed} exited (SIGKILL); starting another`), { what: 'the death logged' });
      expect(await get(`${base}/v2/questioner?country_id=1`)).toBe(200);

      const workers = workersOf(child.pid!);
      const exit = exited(child);
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
    }));
});
