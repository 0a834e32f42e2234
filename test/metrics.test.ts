import request from 'supertest';
import { testApp } from './support/app';
import { expectProblem } from './support/expect';

describe('GET /metrics', () => {
  it('counts requests by route pattern and shows pool use, to a scraper on this machine', async () => {
    const t = testApp();
    try {
      await request(t.app).get('/v2/questioner?country_id=1').expect(200);
      await request(t.app).get('/v2/questioner?country_id=2').expect(200);
      await request(t.app).get('/v2/nothing-here').expect(404);
      const res = await request(t.app).get('/metrics').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/^http_requests_total\{method="GET",route="\/v2\/questioner",status="200"\} 2$/m);
      expect(res.text).toMatch(/^http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
      expect(res.text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/v2\/questioner",status="200"\} 2$/m);
      expect(res.text).toMatch(/^db_pool_connections\{pool="queries",state="total"\} \d+$/m);
      expect(res.text).toMatch(/^db_pool_connections\{pool="streams",state="idle"\} \d+$/m);
      expect(res.text).not.toContain('country_id');
    } finally {
      await t.close();
    }
  });

  it('without a token, answers this machine only when straight: a request a local proxy forwards is a 404', async () => {
    const t = testApp('fixture', { TRUST_PROXY: 'on' });
    try {
      await request(t.app).get('/metrics').expect(200);
      expectProblem(await request(t.app).get('/metrics').set('X-Forwarded-For', '203.0.113.9'), 404);
      expectProblem(await request(t.app).get('/metrics').set('Forwarded', 'for=203.0.113.9'), 404);
      // Whatever header the proxy adds, nginx's X-Real-IP or a TLS forwarder's Via among them.
      for (const [name, value] of [
        ['X-Real-IP', '203.0.113.9'],
        ['Via', '1.1 tls-forwarder'],
        ['X-Forwarded-Proto', 'https'],
        ['X-Forwarded-Host', 'example.org'],
        ['X-Client-IP', '203.0.113.9'],
        ['True-Client-IP', '203.0.113.9'],
        ['Client-IP', '203.0.113.9'],
        ['X-Forwarded', 'for=203.0.113.9'],
        ['Forwarded-For', '203.0.113.9'],
        ['X-Cluster-Client-IP', '203.0.113.9'],
        ['X-Azure-ClientIP', '203.0.113.9'],
        ['X-Envoy-External-Address', '203.0.113.9'],
        ['X-ProxyUser-Ip', '203.0.113.9'],
        ['X-AppEngine-User-IP', '203.0.113.9'],
      ])
        expectProblem(await request(t.app).get('/metrics').set(name, value), 404);
    } finally {
      await t.close();
    }
  });

  it('with METRICS_TOKEN set, answers only that bearer and is a plain 404 to anyone else', async () => {
    const t = testApp('fixture', { METRICS_TOKEN: 'scrape-secret' });
    try {
      expectProblem(await request(t.app).get('/metrics'), 404);
      expectProblem(await request(t.app).get('/metrics').set('Authorization', 'Bearer wrong'), 404);
      await request(t.app).get('/metrics').set('Authorization', 'Bearer scrape-secret').expect(200);
    } finally {
      await t.close();
    }
  });
});
