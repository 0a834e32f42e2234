import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { freePort, startEmbedded, type EmbeddedServer } from '../src/db/embedded';
import { migrateDatabase } from '../src/db/migrate';
import { createPool } from '../src/db/pool';
import { expectProblem } from './support/expect';
import { eventually } from './support/wait';

// A throwaway PostgreSQL on its own port, which this test stops and starts under the running app.
jest.setTimeout(60000);

const answersAgain = { ms: 15000, every: 100, what: 'a 200 from the database come back' };

describe('losing the database', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-equipment-loss-'));
  let server: EmbeddedServer | undefined;
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 while the database is away and recovers by itself, without a restart', async () => {
    fs.chmodSync(dir, 0o755);
    const dataDir = path.join(dir, 'pg');
    fs.writeFileSync(`${dataDir}.password`, 'loss-test\n'); // known ahead, so the app can be built first
    const port = await freePort();
    const url = `postgres://postgres:loss-test@127.0.0.1:${port}/postgres`;
    const config = loadConfig({ NODE_ENV: 'test', AUTH: 'off', DB_ACQUIRE_TIMEOUT_MS: '1000', STREAMS_PER_TOKEN: '8' });
    const logs: string[] = [];
    const pool = createPool(url, config, (m) => logs.push(m));
    const app = createApp({ pool, config, log: (m) => logs.push(m) });
    try {
      // Down from the start: the app is up and says so.
      let res = await request(app).get('/v2/questioner');
      const body = expectProblem(res, 503);
      expect(res.headers['retry-after']).toBe('5');
      expect(body.request_id).toBe(res.headers['x-request-id']);
      expectProblem(await request(app).get('/health/ready'), 503);
      expect((await request(app).get('/health/live')).status).toBe(200);

      // The database comes up: answers resume on the same pool.
      server = await startEmbedded(dataDir, { port });
      await migrateDatabase(url);
      await eventually(async () => (await request(app).get('/v2/questioner')).status === 200, answersAgain);

      // It stops and starts again under load: every answer is a 200 or a 503, and the process carries on.
      const statuses = new Set<number>();
      let answered = 0;
      let loading = true;
      const load = Promise.all(
        Array.from({ length: 4 }, async () => {
          while (loading) {
            statuses.add((await request(app).get('/v2/questioner')).status);
            answered++;
          }
        }),
      );
      await eventually(() => answered >= 8, { what: 'the load running' });
      await server.stop();
      res = await request(app).get('/v2/questioner');
      expectProblem(res, 503);
      server = await startEmbedded(dataDir, { port });
      await eventually(async () => (await request(app).get('/v2/questioner')).status === 200, answersAgain);
      loading = false;
      await load;
      expect([...statuses].sort()).toEqual([200, 503]);
      expect((await request(app).get('/health/ready')).status).toBe(200);
    } finally {
      await pool.end();
    }
  });
});
