import request from 'supertest';
import { testApp, type TestApp } from './support/app';

let t: TestApp;
beforeAll(() => (t = testApp()));
afterAll(() => t.close());

const attributes = (html: string, name: string) => [...html.matchAll(new RegExp(`\\s${name}="([^"]*)"`, 'g'))].map((m) => m[1]);

/** The CSP header as a map of directive to its sources. */
function csp(header: string): Record<string, string[]> {
  return Object.fromEntries(
    header
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...sources]) => [name, sources]),
  );
}

describe('GET /docs', () => {
  it('answers an HTML page that loads the OpenAPI document into Swagger UI', async () => {
    const res = await request(t.app).get('/docs').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(attributes(res.text, 'data-spec-url')).toEqual(['/v2/openapi.json']);
    expect(attributes(res.text, 'src')).toEqual(['/docs/assets/swagger-ui/swagger-ui-bundle.js', '/docs/assets/swagger-init.js']);
    await request(t.app).get('/docs/').expect(200);
  });

  it('references only assets of this service, and each is served with its type', async () => {
    const { text } = await request(t.app).get('/docs').expect(200);
    const urls = [...attributes(text, 'src'), ...attributes(text, 'href')];
    expect(urls.length).toBeGreaterThanOrEqual(4);
    expect(text).not.toMatch(/https?:|\/\/[a-z]/i);
    const types: Record<string, RegExp> = { js: /javascript/, css: /^text\/css/, png: /^image\/png/, json: /^application\/json/ };
    for (const url of urls) {
      expect(url).toMatch(/^\/[^/]/); // a path on this origin, never another host
      const res = await request(t.app).get(url);
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
      expect(res.headers['content-type']).toMatch(types[url.split('.').pop()!]);
    }
  });

  it('starts Swagger UI from a script file, with "Try it out" on and no outside validator', async () => {
    const res = await request(t.app).get('/docs/assets/swagger-init.js').expect(200);
    expect(res.text).toMatch(/SwaggerUIBundle\(/);
    expect(res.text).toMatch(/tryItOutEnabled: true/);
    expect(res.text).toMatch(/validatorUrl: null/);
    expect(res.text).not.toMatch(/https?:/);
  });

  it('keeps the CSP that forbids inline scripts, and it allows what Swagger UI needs', async () => {
    const res = await request(t.app).get('/docs').expect(200);
    const policy = csp(res.headers['content-security-policy']);
    expect(policy['script-src']).toEqual(["'self'"]);
    expect(policy['script-src-attr']).toEqual(["'none'"]);
    expect(policy['default-src']).toEqual(["'self'"]); // fetching the document and "Try it out" stay on this origin
    expect(policy['style-src']).toContain("'unsafe-inline'"); // Swagger UI sets style attributes
    expect(policy['img-src']).toContain('data:'); // its stylesheet draws icons from data: URLs
    // So the page itself must hold no inline script and no event-handler attribute.
    for (const [, attrs, body] of res.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(attrs).toMatch(/\ssrc="/);
      expect(body.trim()).toBe('');
    }
    expect(res.text).not.toMatch(/\son[a-z]+=/i);
  });

  it('has the same CSP as every page, without upgrade-insecure-requests unless TLS is in front', async () => {
    const app = csp((await request(t.app).get('/health/live')).headers['content-security-policy']);
    const docs = csp((await request(t.app).get('/docs')).headers['content-security-policy']);
    expect(docs).toEqual(app);
    // Over plain HTTP on another address it would send the page's own files to an https that is not there.
    expect(app['upgrade-insecure-requests']).toBeUndefined();
    const proxied = testApp('fixture', { TRUST_PROXY: 'on' });
    try {
      const behindTls = csp((await request(proxied.app).get('/docs')).headers['content-security-policy']);
      expect(behindTls['upgrade-insecure-requests']).toEqual([]);
    } finally {
      await proxied.close();
    }
  });

  it('serves only the Swagger UI files the page uses, not the rest of the package', async () => {
    await request(t.app).get('/docs/assets/swagger-ui/swagger-ui-bundle.js.map').expect(200);
    for (const file of ['index.html', 'swagger-initializer.js', 'package.json', 'oauth2-redirect.html', '../package.json']) {
      expect((await request(t.app).get(`/docs/assets/swagger-ui/${file}`)).status).toBe(404);
    }
  });
});
