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
  it.each(variants)('sends the same headers as helmet %s', async (_label, options) => {
    const ours = await headersOf(securityHeaders(options));
    const theirs = await headersOf(helmet(options));
    expect(strip(ours.headers)).toEqual(strip(theirs.headers));
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
