// The helper that runs one bounded statement for a request (src/db/rows.ts, every answer read at once):
// a client that leaves stops its statement in PostgreSQL, at once.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express from 'express';
import { queryRows } from '../src/db/rows';
import { clientSignal } from '../src/http/client-signal';
import { ClientGone } from '../src/db/pool';
import { testApp, type TestApp } from './support/app';
import { eventually } from './support/wait';

let t: TestApp;
beforeAll(() => {
  t = testApp('fixture');
});
afterAll(() => t.close());

/** Backends of this test's pool still running a pg_sleep tagged with `tag`. */
async function sleeping(tag: string): Promise<number> {
  const { rows } = await t.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
    [`%${tag}%`],
  );
  return Number(rows[0].n);
}

test.each(['pool', 'adminPool'] as const)('a client that leaves mid-statement has it cancelled (%s)', async (pool) => {
  const tag = `cancel-${pool}-${process.pid}`;
  const controller = new AbortController();
  const result = queryRows(t[pool], { text: `SELECT pg_sleep(30), '${tag}'` }, controller.signal);
  result.catch(() => undefined);
  await eventually(async () => (await sleeping(tag)) === 1, { what: 'the statement running' });
  const started = Date.now();
  controller.abort();
  await expect(result).rejects.toBeInstanceOf(ClientGone);
  await eventually(async () => (await sleeping(tag)) === 0, { ms: 3000, what: 'the statement stopped' });
  expect(Date.now() - started).toBeLessThan(3000);
});

describe('through the request (clientSignal)', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    const app = express();
    app.get('/sleep/:tag/:seconds', (req, res, next) => {
      const text = `SELECT pg_sleep(${Number(req.params.seconds)}), '${String(req.params.tag)}'`;
      queryRows(t.pool, { text }, clientSignal(res)).then(() => res.json({ slept: true }), next);
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('cancels the statement of a client that hangs up, after answering its earlier requests on the same connection', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ status: number; socket: Socket; request: http.ClientRequest }>((resolve, reject) => {
        const request = http.get(`${base}${path}`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: request.socket!, request }));
        });
        request.on('error', reject);
      });
    // Two answers on one kept-alive connection: the connection's signal has not aborted for them.
    const first = await get('/sleep/first/0');
    const second = await get('/sleep/second/0');
    expect([first.status, second.status, second.socket]).toEqual([200, 200, first.socket]);

    const tag = `hangup-${process.pid}`;
    const third = http.get(`${base}/sleep/${tag}/30`, { agent });
    third.on('error', () => undefined);
    await eventually(async () => (await sleeping(tag)) === 1, { what: 'the statement running' });
    const started = Date.now();
    third.destroy();
    await eventually(async () => (await sleeping(tag)) === 0, { ms: 3000, what: 'the statement stopped' });
    expect(Date.now() - started).toBeLessThan(3000);
    agent.destroy();
  });
});
