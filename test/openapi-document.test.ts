import request from 'supertest';
import { buildOpenApiDocument } from '../src/api/v2/openapi';
import { allOperations, operations } from '../src/api/v2/operations';
import { createToken } from '../src/auth/tokens';
import { describeRule, type ParamDef } from '../src/filters/define';
import { testApp, testAppWithAuth, type TestApp } from './support/app';
import { ResponseChecker, dereferenced, servedDocument, type OpenApiDocument } from './support/openapi';
import { validateOpenApi } from './support/openapi-parser';

let t: TestApp;
let served: OpenApiDocument;
let document: OpenApiDocument;
let checker: ResponseChecker;
beforeAll(async () => {
  t = testApp();
  served = await servedDocument(t.app);
  document = await dereferenced(served);
  checker = new ResponseChecker(document);
});
afterAll(() => t.close());

const paths = Object.keys(operations) as Array<keyof typeof operations>;
const parameters = paths.flatMap((path) =>
  Object.entries(operations[path].validate.params as Record<string, ParamDef>).map(([name, def]) => ({ path, name, def })),
);

describe('GET /v2/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(served.openapi).toMatch(/^3\.1\./);
    await expect(validateOpenApi(served)).resolves.toBeDefined();
  });

  it('is the document generated from the operations, answered like the rest of /v2', async () => {
    expect(served).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(allOperations, { auth: false }))));
    const res = await request(t.app).get('/v2/openapi.json');
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it("documents exactly the registry's operations, each as GET and HEAD, relative to /v2", () => {
    expect(served.servers).toEqual([expect.objectContaining({ url: '/v2' })]);
    expect(Object.keys(served.paths)).toEqual(paths);
    for (const path of paths) expect(Object.keys(served.paths[path])).toEqual(['get', 'head']);
    const ids = paths.flatMap((path) => [served.paths[path].get.operationId, served.paths[path].head.operationId]);
    expect(new Set(ids).size).toBe(paths.length * 2);
    for (const path of paths) {
      const { get, head } = served.paths[path];
      expect(head.parameters).toEqual(get.parameters);
      expect(head.responses['200'].content).toBeUndefined();
    }
  });

  it('attaches to every operation the errors any request may get: 400, 404, 405, 500, 503 (and 401, 429 with tokens)', async () => {
    for (const path of paths) {
      for (const method of ['get', 'head']) {
        expect(Object.keys(served.paths[path][method].responses)).toEqual(['200', '400', '404', '405', '500', '503']);
      }
    }
    const secured = await testAppWithAuth();
    try {
      const document = (await request(secured.app).get('/v2/openapi.json').expect(200)).body;
      for (const path of paths) {
        expect(Object.keys(document.paths[path].get.responses)).toEqual(['200', '400', '401', '404', '405', '429', '500', '503']);
      }
      // A real 405 and a real 404 match what the document says of them.
      const securedChecker = new ResponseChecker(await dereferenced(document));
      securedChecker.expectDocumented(await request(secured.app).post('/v2/riders'), '/riders');
      securedChecker.expectDocumented(await request(secured.app).get('/v2/no-such-operation'));
    } finally {
      await secured.close();
    }
  });

  it('declares the rate-limit headers that answers with a token carry, and they match', async () => {
    const secured = await testAppWithAuth();
    try {
      const document = (await request(secured.app).get('/v2/openapi.json').expect(200)).body;
      expect(Object.keys(document.paths['/riders'].get.responses['200'].headers)).toEqual(
        expect.arrayContaining(['RateLimit', 'RateLimit-Policy']),
      );
      expect(Object.keys(document.components.responses.TooManyRequests.headers)).toEqual(
        expect.arrayContaining(['RateLimit', 'RateLimit-Policy']),
      );
      const { token } = await createToken(secured.owner, { name: `openapi-test-${process.pid}` });
      await secured.tokens!.refresh();
      const res = await request(secured.app).get('/v2/questioner?country_id=1').set('Authorization', `Bearer ${token}`).expect(200);
      expect(res.headers.ratelimit).toMatch(/^limit=\d+, remaining=\d+, reset=\d+$/);
      expect(res.headers['ratelimit-policy']).toMatch(/^\d+;w=60$/);
      new ResponseChecker(await dereferenced(document)).expectDocumented(res, '/questioner');
    } finally {
      await secured.close();
    }
  });

  it('requires the bearer scheme of every operation when tokens are on, and stays public itself', async () => {
    const secured = await testAppWithAuth();
    try {
      const document = (await request(secured.app).get('/v2/openapi.json').expect(200)).body;
      expect(document.security).toEqual([{ bearerAuth: [] }]);
      expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(document.info.description).toMatch(/every operation needs `Authorization: Bearer <token>`/);
      await expect(validateOpenApi(document)).resolves.toBeDefined();
      // The real 401 and 429 answers match what the document says of them.
      const securedChecker = new ResponseChecker(await dereferenced(document));
      securedChecker.expectDocumented(await request(secured.app).get('/v2/riders'), '/riders');
      securedChecker.expectDocumented(await request(secured.app).get('/v2/riders').set('Authorization', 'Bearer nope'), '/riders');
    } finally {
      await secured.close();
    }
    const limited = await testAppWithAuth('fixture', { AUTH_FAILURES_PER_MINUTE: '1' });
    try {
      const document = (await request(limited.app).get('/v2/openapi.json').expect(200)).body;
      const limitedChecker = new ResponseChecker(await dereferenced(document));
      expect((await request(limited.app).get('/v2/riders')).status).toBe(401);
      const res = await request(limited.app).get('/v2/riders');
      expect(res.status).toBe(429);
      limitedChecker.expectDocumented(res, '/riders');
    } finally {
      await limited.close();
    }
  });

  it('says plainly when tokens are turned off on this server', () => {
    expect(served.security).toBeUndefined();
    expect(served.info.description).toMatch(/turned off on this server \(`AUTH=off`\)/);
  });

  it.each([400, 401, 404, 405, 429, 500, 503])('documents a problem+json answer for %i', (status) => {
    const response = checker.documented(status, status === 404 || status === 405 ? undefined : '/riders');
    expect(Object.keys(response.content!)).toEqual(['application/problem+json']);
    if (status === 401) expect(Object.keys(response.headers!)).toContain('WWW-Authenticate');
    if (status === 429) expect(Object.keys(response.headers!)).toContain('Retry-After');
  });

  it("states DECISIONS' rules where readers look for them", () => {
    const intro: string = served.info.description;
    expect(intro).toMatch(/inclusive by calendar day/);
    expect(intro).toMatch(/empty value .* counts as not given/);
    expect(intro).toMatch(/repeated name .* bracket form .* is a 400/s);
    expect(intro).toMatch(/Order is stable/);
    expect(served.paths['/patrollerchecks'].get.description).toMatch(/ordered by `ID`/);
    expect(served.paths['/assign-list'].get.description).toMatch(/ordered by assign date then id/);
  });
});

describe('the parameters in the document', () => {
  it('are exactly those each operation accepts, in order, optional and in the query', () => {
    for (const path of paths) {
      const documented = served.paths[path].get.parameters;
      expect(documented.map((p: { name: string }) => p.name)).toEqual(Object.keys(operations[path].validate.params));
      for (const p of documented) expect(p).toMatchObject({ in: 'query', required: false });
    }
  });

  it.each(parameters)('$path $name is described with its own words and its rule', ({ path, name, def }) => {
    const documented = served.paths[path].get.parameters.find((p: { name: string }) => p.name === name);
    const rule = describeRule(def);
    expect(documented.description).toContain(def.description);
    expect(documented.description).toContain(`${rule[0].toUpperCase()}${rule.slice(1)}.`);
    expect(documented.description).toContain('An empty value counts as not given.');
    if (def.from) expect(documented.description).toContain(def.from);
    if (def.aliasOf) expect(documented.description).toContain(def.aliasOf);
    if (def.default !== undefined) expect(documented.schema.default).toBe(def.default);
  });

  // Texts a client could send for each type, good and bad. Whether a schema accepts one must agree with
  // whether the API does: the schema is checked against the validator's real behaviour, not restated.
  const probes: Record<ParamDef['type'], (def: ParamDef) => string[]> = {
    bigint: () => [
      '1',
      '007',
      '42',
      '9223372036854775807',
      '09223372036854775807',
      '9223372036854775808',
      '9300000000000000000',
      '10000000000000000000',
      '0',
      '000',
      '-1',
      '+1',
      '1.5',
      '1e3',
      'abc',
      ' 1',
      '0x10',
    ],
    integer: (def) => ['1', '007', String(def.max), String(def.max! + 1), String(def.min! - 1), '-1', '1.5', '1e2', 'abc', '99999999999'],
    date: () => [
      '2024-05-01',
      '2024-02-29',
      '2023-02-29',
      '2024-02-30',
      '2024-04-31',
      '2024-13-01',
      '2024-00-10',
      '2024-5-1',
      '20240501',
      '2024-05-01T00:00:00Z',
      'yesterday',
    ],
    boolean: () => ['1', '0', 'true', 'false', 'TRUE', 'False', 'tRuE', 'yes', 'no', '2', 't', 'true ', '01'],
    enum: (def) => [...def.values!, ...def.values!.map((v) => v.toLowerCase()), ...def.values!.map((v) => v.toUpperCase()), 'other', '2'],
    text: () => ['Swift & Co', '100%_Express', 'توصيل سريع', 'a'.repeat(255), 'a'.repeat(256), 'a\u0000b', ' '],
  };

  // How a client serialises a value into the query: integers as digits, everything else as the text itself.
  const deserialise = (schema: { type?: string }, text: string): unknown =>
    schema.type === 'integer' && /^-?[0-9]+$/.test(text) ? Number(text) : text;

  it.each(parameters)('$path $name: its schema accepts exactly what the API accepts', async ({ path, name, def }) => {
    const { schema } = document.paths[path].get.parameters.find((p: { name: string }) => p.name === name);
    const disagreements: string[] = [];
    for (const text of new Set(probes[def.type](def))) {
      // HEAD runs the same validation as GET without querying: 200 accepted, 400 refused.
      const res = await request(t.app).head(`/v2${path}?${encodeURIComponent(name)}=${encodeURIComponent(text)}`);
      expect([200, 400]).toContain(res.status);
      const byApi = res.status === 200;
      const bySchema = checker.isValid(schema, deserialise(schema, text));
      if (byApi !== bySchema)
        disagreements.push(`${JSON.stringify(text)}: API ${byApi ? 'accepts' : 'refuses'}, schema ${bySchema ? 'accepts' : 'refuses'}`);
    }
    expect(disagreements).toEqual([]);
  });
});
