import http from 'node:http';
import request from 'supertest';
import { poolSettles, serve, testApp, type TestApp } from './support/app';
import { expectProblem } from './support/expect';
import { eventually } from './support/wait';

// A copy of the demo database of its own (no other file's statements in its activity): 300 riders,
// thousands of checks, megabytes of JSON.
let t: TestApp;
let server: Awaited<ReturnType<typeof serve>>;
let base: string;
beforeAll(async () => {
  t = testApp('streaming');
  server = await serve(t.app);
  base = server.base;
});
afterAll(async () => {
  await server.close();
  await t.close();
});

async function activeQueries(): Promise<number> {
  const { rows } = await t.pool.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name LIKE 'rider-equipment-service%'
        AND state <> 'idle' AND pid <> pg_backend_pid()`,
  );
  return rows[0].n;
}

/** Reads the first chunk of a response, then drops the connection. */
function abortAfterFirstChunk(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, (res) => {
      res.once('data', (chunk: Buffer) => {
        req.destroy();
        resolve(chunk.length);
      });
    });
    req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
  });
}

describe('unfiltered answers stream every record', () => {
  it('streams all patrol checks, far more than one buffer, complete and in ID order', async () => {
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM patrol_checks');
    const res = await request(base).get('/v2/patrollerchecks').expect(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(Buffer.byteLength(res.text)).toBeGreaterThan(4 * 1024 * 1024);
    const ids = (res.body as Array<{ ID: number }>).map((check) => check.ID);
    expect(ids).toHaveLength(rows[0].n);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    await poolSettles(t.streamPool);
  });

  it('streams every assignment in assign-list and groups the same records in riders', async () => {
    const { rows } = await t.pool.query('SELECT count(*)::int AS n, count(DISTINCT rider_id)::int AS riders FROM assignments');
    const list = await request(base).get('/v2/assign-list').expect(200);
    expect(list.body).toHaveLength(rows[0].n);
    const riders = await request(base).get('/v2/riders').expect(200);
    expect(riders.body).toHaveLength(rows[0].riders);
    expect(riders.body.reduce((sum: number, r: { Products: unknown[] }) => sum + r.Products.length, 0)).toBe(rows[0].n);
  });

  it('cancels the query and leaves no pooled connection behind when clients go away mid-answer', async () => {
    for (let i = 0; i < 5; i++) {
      expect(await abortAfterFirstChunk('/v2/patrollerchecks')).toBeGreaterThan(0);
      expect(await abortAfterFirstChunk('/v2/riders')).toBeGreaterThan(0);
    }
    await poolSettles(t.streamPool);
    await eventually(async () => (await activeQueries()) === 0, { what: 'no query still running' });
    expect(t.streamPool.totalCount).toBeLessThanOrEqual(t.config.pool.streamMax);
    // The pool still serves complete answers afterwards.
    const res = await request(base).get('/v2/questioner').expect(200);
    expect(res.body.length).toBeGreaterThan(0);
  });
});

describe('statement timeouts', () => {
  it('gives whole-table answers their own, longer timeout than short queries', async () => {
    const strict = testApp('streaming', { STATEMENT_TIMEOUT_MS: '1', STREAM_STATEMENT_TIMEOUT_MS: '600000' });
    try {
      // (Even a SHOW on the 1 ms pool may be cancelled on a loaded machine: the 503 below shows that timeout.)
      expect((await strict.streamPool.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('10min');
      const { rows } = await strict.streamPool.query('SELECT count(*)::int AS n FROM assignments');
      const res = await request(strict.app).get('/v2/assign-list').expect(200);
      expect(res.body).toHaveLength(rows[0].n);
      // A short query past its timeout is cancelled and answered 503, not left to run.
      const slow = await request(strict.app).get('/v2/rider-equipment-list?per_page=1000');
      expectProblem(slow, 503);
    } finally {
      await strict.close();
    }
  });

  it('answers 503 when a whole-table answer cannot even start within its timeout', async () => {
    const strict = testApp('streaming', { STREAM_STATEMENT_TIMEOUT_MS: '1' });
    try {
      expectProblem(await request(strict.app).get('/v2/riders'), 503);
      await poolSettles(strict.streamPool);
    } finally {
      await strict.close();
    }
  });
});

describe('a full pool', () => {
  it('answers 503 with Retry-After after DB_ACQUIRE_TIMEOUT_MS, rather than hanging', async () => {
    // 1 s, not less: the same bound applies to opening the connection held below, which on a busy
    // machine can take more than a few hundred milliseconds.
    const small = testApp('fixture', { DB_POOL_MAX: '1', DB_ACQUIRE_TIMEOUT_MS: '1000' });
    const held = await small.pool.connect();
    try {
      const started = Date.now();
      const res = await request(small.app).get('/v2/rider-equipment-list');
      expectProblem(res, 503);
      expect(res.headers['retry-after']).toBe('5');
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      held.release();
      await small.close();
    }
  });
});
