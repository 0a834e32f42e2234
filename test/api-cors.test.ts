import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createToken } from '../src/auth/tokens';
import { loadConfig } from '../src/config';
import { testAppWithAuth, serve, type TestApp } from './support/app';
import { launchChromium } from './support/browser';

// CORS_ORIGINS opens the API to pages of other origins, and only to those listed. A browser asks
// first (a preflight OPTIONS without the token), then sends the GET with its token.

const APP_ORIGIN = 'https://app.example.com';

const preflight = (t: TestApp, origin: string) =>
  request(t.app)
    .options('/v2/riders?rider_id=101')
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'GET')
    .set('Access-Control-Request-Headers', 'authorization');

describe('CORS_ORIGINS unset: no other origin may read the API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testAppWithAuth();
  });
  afterAll(() => t.close());

  it('sends no CORS headers, and a preflight gets no permission', async () => {
    const pre = await preflight(t, APP_ORIGIN);
    expect(pre.status).toBe(401);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const res = await request(t.app).get('/v2/openapi.json').set('Origin', APP_ORIGIN).expect(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS_ORIGINS set', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await testAppWithAuth('fixture', { CORS_ORIGINS: `${APP_ORIGIN}, http://127.0.0.1:9` });
    token = (await createToken(t.owner, { name: `cors-test-${process.pid}` })).token;
    await t.tokens!.refresh();
  });
  afterAll(() => t.close());

  it("answers a listed origin's preflight without a token: GET and HEAD, with the Authorization header", async () => {
    const res = await preflight(t, APP_ORIGIN).expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(res.headers['access-control-allow-methods']).toBe('GET,HEAD');
    expect(res.headers['access-control-allow-headers']).toMatch(/Authorization/);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['access-control-max-age']).toBe('600');
  });

  it('lets a listed origin read answers and their request id and limit headers, errors included', async () => {
    const ok = await request(t.app)
      .get('/v2/riders?rider_id=101')
      .set('Origin', APP_ORIGIN)
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expect(ok.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(ok.headers['access-control-expose-headers']).toBe('X-Request-Id,RateLimit,RateLimit-Policy,Retry-After,WWW-Authenticate');
    expect(ok.headers.vary).toMatch(/Origin/);
    expect(Array.isArray(ok.body)).toBe(true);
    const refused = await request(t.app).get('/v2/riders').set('Origin', APP_ORIGIN).expect(401);
    expect(refused.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });

  it('gives an origin that is not listed no permission, and the token is still required', async () => {
    const pre = await preflight(t, 'https://evil.example.net');
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const res = await request(t.app)
      .get('/v2/riders?rider_id=101')
      .set('Origin', 'https://evil.example.net')
      .set('Authorization', `Bearer ${token}`);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    await request(t.app).get('/v2/riders?rider_id=101').set('Origin', APP_ORIGIN).expect(401);
  });

  it('concerns the API only, not the admin pages', async () => {
    const res = await request(t.app).get('/admin/sign-in').set('Origin', APP_ORIGIN);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS_ORIGINS values', () => {
  it('takes origins or *, and refuses anything else at start', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: ' https://a.example.com ,http://localhost:8080' }).corsOrigins).toEqual([
      'https://a.example.com',
      'http://localhost:8080',
    ]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example.com/' })).toThrow(
      /CORS_ORIGINS: "https:\/\/a.example.com\/" is not an origin/,
    );
    expect(() => loadConfig({ CORS_ORIGINS: 'a.example.com' })).toThrow(/is not an origin/);
    expect(() => loadConfig({ CORS_ORIGINS: '*,https://a.example.com' })).toThrow(/either \* or a list/);
  });

  it('with *, any origin may read', async () => {
    const t = await testAppWithAuth('fixture', { CORS_ORIGINS: '*' });
    try {
      const res = await preflight(t, 'https://anywhere.example.org').expect(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    } finally {
      await t.close();
    }
  });
});

describe('a page of another origin in Chromium', () => {
  it('reads the API with its token when its origin is listed, and is refused when it is not', async () => {
    // The page's own server, on another port of loopback: another origin.
    const page = http.createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>app</title>'),
    );
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    const allowed = await testAppWithAuth('fixture', { CORS_ORIGINS: pageOrigin });
    const closed = await testAppWithAuth('fixture');
    const browser = await launchChromium();
    const servers = [await serve(allowed.app), await serve(closed.app)];
    try {
      const { token } = await createToken(allowed.owner, { name: `cors-browser-${process.pid}` });
      await allowed.tokens!.refresh();
      await closed.tokens!.refresh();
      const tab = await browser.newPage();
      await tab.goto(pageOrigin);
      const call = (base: string) =>
        tab.evaluate(
          async ([url, bearer]) => {
            try {
              const res = await fetch(url, { headers: { Authorization: `Bearer ${bearer}` } });
              return { status: res.status, requestId: res.headers.get('X-Request-Id'), riders: ((await res.json()) as unknown[]).length };
            } catch (error) {
              return { failed: String(error) };
            }
          },
          [`${base}/v2/riders?rider_id=101`, token] as const,
        );
      expect(await call(servers[0].base)).toEqual({ status: 200, requestId: expect.any(String), riders: 1 });
      expect(await call(servers[1].base)).toEqual({ failed: expect.stringMatching(/Failed to fetch/) });
    } finally {
      await browser.close();
      await Promise.all(servers.map((s) => s.close()));
      await Promise.all([allowed.close(), closed.close()]);
      await new Promise((resolve) => page.close(resolve));
    }
  });
});
