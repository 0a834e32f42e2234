import express from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import request from 'supertest';
import { securityHeaders } from '../src/http/security-headers';

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
