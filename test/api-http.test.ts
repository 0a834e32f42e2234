import express from 'express';
import request from 'supertest';
import { problemHandler } from '../src/http/problem';
import { testApp, type TestApp } from './support/app';
import { expectProblem } from './support/expect';

let t: TestApp;
beforeAll(() => (t = testApp()));
afterAll(() => t.close());

describe('HTTP behaviour of /v2', () => {
  it.each(['post', 'put', 'patch', 'delete', 'options'] as const)('answers %s with 405 and Allow: GET, HEAD', async (method) => {
    const res = await request(t.app)[method]('/v2/riders');
    const body = expectProblem(res, 405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(body.title).toBe('Method Not Allowed');
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const res = await request(t.app).head('/v2/patrollerchecks').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.text).toBeUndefined();
  });

  it('validates HEAD requests like GET', async () => {
    expect((await request(t.app).head('/v2/patrollerchecks?rider_id=x')).status).toBe(400);
  });

  it('serves an operation as Express matches a path: any letter case, one trailing slash', async () => {
    const plain = await request(t.app).get('/v2/assign-list?rider_id=101').expect(200);
    expect((await request(t.app).get('/v2/Assign-List?rider_id=101').expect(200)).text).toBe(plain.text);
    expect((await request(t.app).get('/v2/assign-list/?rider_id=101').expect(200)).text).toBe(plain.text);
    expectProblem(await request(t.app).get('/v2/assign-list//?rider_id=101'), 404);
    expectProblem(await request(t.app).get('/v2/assign-list/x'), 404);
    expectProblem(await request(t.app).post('/v2/Assign-List/'), 405);
  });

  it('answers unknown paths with 404 problem+json', async () => {
    expectProblem(await request(t.app).get('/v2/rider'), 404);
    expectProblem(await request(t.app).get('/v3/riders'), 404);
    expectProblem(await request(t.app).get('/nothing-here'), 404);
  });

  it('sends a browser at / to the admin pages, and answers an API client there with 404 problem+json', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const res = await request(t.app).get('/').set('Accept', browser).expect(302);
    expect(res.headers.location).toBe('/admin');
    expectProblem(await request(t.app).get('/').set('Accept', 'application/json'), 404);
    expectProblem(await request(t.app).get('/'), 404);
    expectProblem(await request(t.app).get('/').set('Accept', '*/*'), 404);
  });

  it('marks personal data as not to be stored by caches, on answers and on errors', async () => {
    expect((await request(t.app).get('/v2/riders')).headers['cache-control']).toBe('no-store');
    expect((await request(t.app).get('/v2/riders?x=1')).headers['cache-control']).toBe('no-store');
    expect((await request(t.app).get('/v2/rider-equipment-list')).headers['cache-control']).toBe('no-store');
  });

  it('sends a request id, keeping a safe one given by the caller', async () => {
    const own = await request(t.app).get('/v2/questioner');
    expect(own.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const given = await request(t.app).get('/v2/questioner').set('X-Request-Id', 'sync-job-42');
    expect(given.headers['x-request-id']).toBe('sync-job-42');
    const unsafe = await request(t.app).get('/v2/questioner').set('X-Request-Id', 'a b<script>');
    expect(unsafe.headers['x-request-id']).not.toBe('a b<script>');
  });

  it('sets security headers and compresses when the client accepts it', async () => {
    const res = await request(t.app).get('/v2/assign-list').set('Accept-Encoding', 'gzip');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.body).toHaveLength(13);
  });

  it('answers /health/live and /health/ready', async () => {
    expect((await request(t.app).get('/health/live').expect(200)).body).toEqual({ status: 'ok' });
    expect((await request(t.app).get('/health/ready').expect(200)).body).toEqual({
      status: 'ok',
      databases: [expect.objectContaining({ name: 'primary', role: 'primary', in_rotation: true, lag_ms: 0 })],
      // How far the kept data is behind the writes (test/kept-concurrency.test.ts follows it).
      kept: { pending_changes: expect.any(Number), behind_ms: expect.any(Number) },
    });
  });
});

describe('a 500', () => {
  it('shows neither stack nor SQL, logs them with the request id, and carries that id', async () => {
    const logs: string[] = [];
    const app = express();
    app.use((_req, res, next) => {
      res.locals.requestId = 'req-1';
      next();
    });
    app.get('/boom', () => {
      throw new Error('syntax error at or near "SELECT secret FROM riders"');
    });
    app.use(problemHandler((message) => logs.push(message)));
    const res = await request(app).get('/boom');
    const body = expectProblem(res, 500);
    expect(res.text).not.toMatch(/secret|SELECT|at .*\.ts/);
    expect(body.request_id).toBe('req-1');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^\[req-1\] GET \/boom -> 500: Error: syntax error at or near "SELECT secret FROM riders"/);
  });
});
