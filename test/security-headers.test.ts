import express from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import request from 'supertest';
import { API_HEADERS, fixedSecurityHeaders, securityHeaders } from '../src/http/security-headers';
import { testApp, type TestApp } from './support/app';

// securityHeaders replays what helmet sets; it must send exactly helmet's headers.
function headersOf(middleware: express.RequestHandler) {
  const app = express();
  app.use(middleware);
  app.get('/', (_req, res) => {
    res.send('ok');
  });
  return request(app).get('/');
}

const strip = (headers: Record<string, string>) => {
  const { date: _date, ...rest } = headers;
  return rest;
};

describe('securityHeaders', () => {
  const variants: Array<[string, HelmetOptions]> = [
    ['as served over plain HTTP', { contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }],
    ['behind TLS (TRUST_PROXY)', { contentSecurityPolicy: { directives: { upgradeInsecureRequests: [] } } }],
  ];
  it.each(variants)('sends the same headers as helmet %s, HSTS only over TLS', async (_label, options) => {
    const ours = await headersOf(securityHeaders(options));
    const theirs = await headersOf(helmet(options));
    const { 'strict-transport-security': hsts, ...rest } = strip(theirs.headers);
    expect(hsts).toMatch(/^max-age=\d+/);
    // Over plain HTTP: everything but HSTS.
    expect(strip(ours.headers)).toEqual(rest);
    // Over TLS (here: a trusted proxy saying so), helmet's HSTS as well.
    const app = express().set('trust proxy', 'loopback').use(securityHeaders(options));
    app.get('/', (_req, res) => void res.send('ok'));
    const secure = await request(app).get('/').set('X-Forwarded-Proto', 'https');
    expect(secure.headers['strict-transport-security']).toBe(hsts);
    // From a proxy that is not trusted, the header says nothing.
    const untrusted = express().use(securityHeaders(options));
    untrusted.get('/', (_req, res) => void res.send('ok'));
    expect((await request(untrusted).get('/').set('X-Forwarded-Proto', 'https')).headers['strict-transport-security']).toBeUndefined();
    expect(ours.headers['content-security-policy']).toContain("default-src 'self'");
    expect(ours.headers['x-powered-by']).toBeUndefined();
  });

  it('falls back to helmet itself when helmet needs the request (a CSP nonce per response)', async () => {
    const options: HelmetOptions = {
      contentSecurityPolicy: { directives: { scriptSrc: ["'self'", (_req, res) => `'nonce-${(res as express.Response).locals.nonce}'`] } },
    };
    const app = express();
    let n = 0;
    app.use((_req, res, next) => {
      res.locals.nonce = `n${++n}`;
      next();
    });
    app.use(securityHeaders(options));
    app.get('/', (_req, res) => {
      res.send('ok');
    });
    const first = await request(app).get('/');
    const second = await request(app).get('/');
    expect(first.headers['content-security-policy']).toContain("'nonce-n1'");
    expect(second.headers['content-security-policy']).toContain("'nonce-n2'");
  });
});

describe('without a trusted proxy (TRUST_PROXY unset)', () => {
  // What a request says of itself does not count: only the connection's own TLS.
  const sentOn = (socket: { encrypted?: boolean }, headers: Record<string, string> = {}) => {
    const sent = new Map<string, string>();
    const set = fixedSecurityHeaders(API_HEADERS, false)!;
    set(
      { socket, headers, secure: true } as never,
      { setHeader: (n: string, v: string) => sent.set(n.toLowerCase(), v), removeHeader: () => undefined } as never,
    );
    return sent;
  };

  it('sends HSTS over a TLS connection and never over plain HTTP, whatever X-Forwarded-Proto says', () => {
    expect(sentOn({ encrypted: true }).get('strict-transport-security')).toMatch(/^max-age=\d+/);
    expect(sentOn({}, { 'x-forwarded-proto': 'https' }).has('strict-transport-security')).toBe(false);
    expect(sentOn({}).get('x-content-type-options')).toBe('nosniff');
  });
});

describe('the API and the pages each get their own set', () => {
  let t: TestApp;
  let cors: TestApp;
  beforeAll(() => {
    t = testApp('fixture');
    cors = testApp('fixture', { CORS_ORIGINS: 'https://app.example.com' });
  });
  afterAll(async () => {
    await t.close();
    await cors.close();
  });

  // The security headers of an answer: those helmet sets with either option set, whatever else it carries.
  const helmetNames = [
    'content-security-policy',
    'cross-origin-opener-policy',
    'cross-origin-resource-policy',
    'origin-agent-cluster',
    'referrer-policy',
    'strict-transport-security',
    'x-content-type-options',
    'x-dns-prefetch-control',
    'x-download-options',
    'x-frame-options',
    'x-permitted-cross-domain-policies',
    'x-xss-protection',
  ];
  const securityOf = (headers: Record<string, string>) =>
    Object.fromEntries(helmetNames.filter((n) => n in headers).map((n) => [n, headers[n]]));
  const pageOptions: HelmetOptions = { contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } };

  it("answers of the API carry helmet's headers for API_HEADERS: a JSON answer's, stricter and shorter than a page's", async () => {
    const api = securityOf(strip((await headersOf(helmet(API_HEADERS))).headers));
    expect(api).toEqual({
      'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      'cross-origin-resource-policy': 'same-origin',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'strict-transport-security': expect.stringMatching(/^max-age=/),
    });
    const { 'strict-transport-security': _hsts, ...overHttp } = api;
    // An answer, a refused request, an unknown operation, the API's document, and a CORS preflight alike.
    for (const res of [
      await request(t.app).get('/v2/riders?rider_id=101'),
      await request(t.app).get('/v2/riders?rider_id=x'),
      await request(t.app).get('/v2/no-such-operation'),
      await request(t.app).get('/v2/openapi.json'),
      await request(cors.app).options('/v2/riders').set('Origin', 'https://app.example.com').set('Access-Control-Request-Method', 'GET'),
    ]) {
      expect(securityOf(res.headers)).toEqual(overHttp);
    }
  });

  it("pages, health and everything else keep helmet's defaults", async () => {
    const { 'strict-transport-security': _hsts, ...pages } = securityOf(strip((await headersOf(helmet(pageOptions))).headers));
    expect(pages['content-security-policy']).toContain("default-src 'self'");
    for (const path of ['/health/live', '/admin', '/docs', '/no-such-page']) {
      expect(securityOf((await request(t.app).get(path)).headers)).toEqual(pages);
    }
  });
});
