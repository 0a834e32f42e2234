import request from 'supertest';
import { maskedText, maskedUrl } from '../src/http/access-log';
import { testApp, testAppWithAuth, type TestApp } from './support/app';

// The access log (LOG_REQUESTS) writes each request's path and query, with the values of secrets masked:
// a token sent as ?access_token= is refused, and must not be kept in the log either.
describe('the access log', () => {
  it('masks the values of parameters named like secrets, and keeps the rest as sent', () => {
    expect(maskedUrl('/v2/assign-list?access_token=abc123&rider_id=5')).toBe('/v2/assign-list?access_token=***&rider_id=5');
    expect(maskedUrl('/x?token=a&Password=b&api_key=c&apiKey=d&key=e&client_secret=f&sig=g&code=h')).toBe(
      '/x?token=***&Password=***&api_key=***&apiKey=***&key=***&client_secret=***&sig=***&code=***',
    );
    expect(maskedUrl('/x?acc%65ss_token=abc&q=Reem+Malik')).toBe('/x?acc%65ss_token=***&q=Reem+Malik');
    expect(maskedUrl('/admin/checks?3pl=Swift%20%26%20Co&page=2')).toBe('/admin/checks?3pl=Swift%20%26%20Co&page=2');
    expect(maskedUrl('/x?%E0%A4%A=1&token')).toBe('/x?%E0%A4%A=1&token');
    expect(maskedUrl('/health')).toBe('/health');
  });

  it('masks anything shaped like an API token wherever it stands: a path segment, a name, a value', () => {
    expect(maskedUrl('/v2/questioner/rev2_abc?x=1')).toBe('/v2/questioner/***?x=1');
    expect(maskedUrl('/x?bearer=rev2_abc&jwt=REV2%5Fabc&rev2_abc&y=rev2%255Fabc&q=Reem')).toBe('/x?bearer=***&jwt=***&***&y=***&q=Reem');
    expect(maskedText('GET /x: bad token rev2_abc-def, said "rev2_X"')).toBe('GET /x: bad token rev2_***, said "rev2_***"');
  });

  describe('written by the app', () => {
    let t: TestApp;
    let lines: string[];
    let spy: jest.SpyInstance;
    beforeAll(async () => {
      t = await testAppWithAuth('fixture', { LOG_REQUESTS: '1' });
    });
    afterAll(() => t.close());
    beforeEach(() => {
      lines = [];
      spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        lines.push(String(chunk));
        return true;
      });
    });
    afterEach(() => spy.mockRestore());

    it('never holds a token sent in the query, refused or not', async () => {
      const secret = 'tok_live_7f3a9c1e5b';
      await request(t.app).get(`/v2/assign-list?access_token=${secret}&rider_id=101`).expect(401);
      await request(t.app).get(`/admin/checks?token=${secret}`);
      expect(lines.join('')).not.toContain(secret);
      expect(lines.some((line) => line.includes('"GET /v2/assign-list?access_token=***&rider_id=101" 401'))).toBe(true);
    });

    it('never holds anything shaped like an API token, in any parameter, path or header, plain or encoded', async () => {
      const token = `rev2_${'A1b2C3d4E5'.repeat(4)}xyz`;
      const encoded = encodeURIComponent(token).replace('_', '%5F');
      const twice = encodeURIComponent(encoded);
      const sent = [
        `/v2/assign-list?bearer=${token}&rider_id=101`,
        `/v2/assign-list?jwt=${encoded}`,
        `/v2/assign-list?${token}`,
        `/v2/assign-list?x=${twice}`,
        `/v2/questioner/${token}`,
        `/v2/questioner/${encoded}/more`,
        `/admin/checks?rider_id=${token}`,
      ];
      for (const path of sent)
        await request(t.app).get(path).set('Authorization', `Bearer ${token}`).set('X-Api-Key', token).set('X-Request-Id', token);
      const written = [...lines, ...t.logs].join('\n');
      for (const shape of [token, encoded, twice, token.slice(5)]) expect(written).not.toContain(shape);
      // Each request still has its line, with the token's place masked.
      expect(lines.some((line) => line.includes('"GET /v2/assign-list?bearer=***&rider_id=101"'))).toBe(true);
      expect(lines.some((line) => line.includes('"GET /v2/questioner/***"'))).toBe(true);
    });
  });

  describe('behind a proxy (TRUST_PROXY)', () => {
    const addressLogged = async (trustProxy: string, forwardedFor: string) => {
      const t = testApp('fixture', { TRUST_PROXY: trustProxy, LOG_REQUESTS: '1' });
      const lines: string[] = [];
      const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        lines.push(String(chunk));
        return true;
      });
      try {
        await request(t.app).get('/health').set('X-Forwarded-For', forwardedFor);
      } finally {
        spy.mockRestore();
        await t.close();
      }
      return lines.join('').split(' ')[0];
    };
    it('believes X-Forwarded-For only from a trusted proxy: a client past it cannot choose its own address', async () => {
      expect(await addressLogged('10.0.0.0/8', '203.0.113.9')).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
      expect(await addressLogged('on', '203.0.113.9')).toBe('203.0.113.9'); // the proxy on this machine
      expect(await addressLogged('off', '203.0.113.9')).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    });
    it('writes no API token a client gave as its address', async () => {
      expect(await addressLogged('on', `rev2_${'A1b2C3d4E5'.repeat(4)}`)).toBe('rev2_***');
    });
  });
});
