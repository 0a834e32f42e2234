import request from 'supertest';
import { createApp } from '../src/app';
import { operations } from '../src/api/v2/operations';
import { loadConfig } from '../src/config';
import { freePort } from '../src/db/embedded';
import { createPool, type Pool } from '../src/db/pool';
import { testApp, type TestApp } from './support/app';
import { ResponseChecker, dereferenced, servedDocument } from './support/openapi';

// Real answers of every operation and every error status, held to the document the app serves: a
// change to a query, a serializer or an error that the document does not say fails here.
let fixture: TestApp;
let demo: TestApp;
let checker: ResponseChecker;
beforeAll(async () => {
  fixture = testApp('fixture');
  demo = testApp('demo');
  checker = new ResponseChecker(await dereferenced(await servedDocument(fixture.app)));
});
afterAll(async () => {
  await fixture.close();
  await demo.close();
});

type Path = keyof typeof operations;
const paths = Object.keys(operations) as Path[];
const swift = encodeURIComponent('Swift & Co');

// Filtered requests that each find records in the fixture; together they use every parameter (checked below).
const filtered: Record<Path, string[]> = {
  '/patrollerchecks': [
    'rider_id=101',
    'check_date_from=2024-05-01&check_date_to=2024-05-31&is_validation=0',
    'tpatroller_id=9007199254740995&license_plate=FALSE&sticker_validation=false',
  ],
  '/questioner': ['country_id=1', 'country_id=2'],
  '/riders': [
    `3pl=${swift}&assign_type=1`,
    'user_id=101',
    'rider_id=9007199254740993',
    'assign_date_from=2024-05-01&assign_date_to=2024-05-01&product_id=10&variation_id=11',
  ],
  '/assign-list': [
    `3pl=${swift}&assign_type=0`,
    'rider_id=101&assign_date_from=2024-05-01&assign_date_to=2024-06-30',
    'product_id=20&variation_id=21',
  ],
  '/product-exchanges': [
    'replacement_type=Accident',
    `rider_id=101&3pl=${swift}&product_id=10&variation_id=11&exchange_date_to=2024-06-10`,
    `new_product_id=10&new_variation_id=12&exchange_date_from=2024-06-10&exchange_type=${encodeURIComponent('Size change')}`,
  ],
  '/product-returns': [
    'return_condition=Damaged',
    `rider_id=103&3pl=${encodeURIComponent('O\'Neil "Quick" Riders')}&product_id=20&variation_id=21&return_date_from=2024-05-31&return_date_to=2024-05-31`,
  ],
  '/rider-equipment-list': ['active=1&per_page=2&page=2', 'active=0', `3pl_name=${swift}&rider_id=101`, 'page=99'],
};

const nonEmpty = (path: Path, body: unknown) =>
  path === '/rider-equipment-list' ? (body as Array<{ total: number }>)[0].total > 0 : (body as unknown[]).length > 0;

describe('answers of every operation match the document', () => {
  it.each(paths)('GET %s with no parameter, on the fixture', async (path) => {
    const res = await request(fixture.app).get(`/v2${path}`).expect(200);
    expect(nonEmpty(path, checker.expectDocumented(res, path))).toBe(true);
  });

  it.each(paths)('GET %s with no parameter, on 300 generated riders', async (path) => {
    const query = path === '/rider-equipment-list' ? '?per_page=1000' : '';
    const res = await request(demo.app).get(`/v2${path}${query}`).expect(200);
    expect(nonEmpty(path, checker.expectDocumented(res, path))).toBe(true);
  });

  it.each(paths.flatMap((path) => filtered[path].map((query) => [path, query] as const)))('GET %s?%s', async (path, query) => {
    const res = await request(fixture.app).get(`/v2${path}?${query}`).expect(200);
    const body = checker.expectDocumented(res, path);
    if (!query.startsWith('page=99')) expect(nonEmpty(path, body)).toBe(true);
  });

  it('the filtered requests above use every parameter of every operation', () => {
    for (const path of paths) {
      const used = new Set(filtered[path].flatMap((query) => [...new URLSearchParams(query).keys()]));
      expect([...used].sort()).toEqual(Object.keys(operations[path].validate.params).sort());
    }
  });

  it('an empty page past the end still has the documented envelope', async () => {
    const res = await request(fixture.app).get('/v2/rider-equipment-list?page=99').expect(200);
    expect(checker.expectDocumented(res, '/rider-equipment-list')).toEqual([expect.objectContaining({ data: [], current_page: 99 })]);
  });
});

describe('every error the service sends matches the document', () => {
  it.each(paths)('400 on GET %s: an unknown, a repeated, a bracket-form and a bad parameter', async (path) => {
    const [first] = Object.keys(operations[path].validate.params);
    for (const query of ['nope=1', `${first}=1&${first}=2`, `${first}[]=1`, `${first}=${encodeURIComponent('\u0000'.repeat(300))}`]) {
      const res = await request(fixture.app).get(`/v2${path}?${query}`);
      expect(res.status).toBe(400);
      checker.expectDocumented(res, path);
    }
  });

  it('400 for a *_from after its *_to, and an alias given with its target', async () => {
    for (const url of ['/riders?assign_date_from=2024-05-02&assign_date_to=2024-05-01', '/riders?user_id=1&rider_id=1']) {
      const res = await request(fixture.app).get(`/v2${url}`);
      expect(res.status).toBe(400);
      checker.expectDocumented(res, url.split('?')[0]);
    }
  });

  it.each(['/v2/rider', '/v3/riders', '/nothing-here', '/v2/openapi.yaml'])('404 for GET %s', async (url) => {
    const res = await request(fixture.app).get(url);
    expect(res.status).toBe(404);
    checker.expectDocumented(res);
  });

  it.each(paths)('405 for the other methods on %s', async (path) => {
    for (const method of ['post', 'put', 'patch', 'delete', 'options'] as const) {
      const res = await request(fixture.app)[method](`/v2${path}`);
      expect(res.status).toBe(405);
      checker.expectDocumented(res);
    }
  });

  // The apps below are built by hand around a pool; AUTH off, since these answers are about the database.
  describe('500, when the database refuses the work for a reason of ours', () => {
    // A real database without the service's tables: every statement fails as a bug would (not a
    // connection problem), so a 500.
    let broken: Pool;
    let app: ReturnType<typeof createApp>;
    beforeAll(() => {
      const config = loadConfig({ NODE_ENV: 'test', AUTH: 'off' });
      broken = createPool(process.env.TEST_ADMIN_URL!, config, () => undefined);
      app = createApp({ pool: broken, config, log: () => undefined });
    });
    afterAll(() => broken.end());

    it.each(paths)('on GET %s', async (path) => {
      const res = await request(app).get(`/v2${path}`);
      expect(res.status).toBe(500);
      const body = checker.expectDocumented(res, path) as { request_id: string };
      expect(body.request_id).toBe(res.headers['x-request-id']);
      expect(res.text).not.toMatch(/relation|does not exist|SELECT/);
    });
  });

  describe('503, when the database is not there', () => {
    let pool: Pool;
    let app: ReturnType<typeof createApp>;
    beforeAll(async () => {
      const config = loadConfig({ NODE_ENV: 'test', AUTH: 'off', DB_ACQUIRE_TIMEOUT_MS: '1000' });
      pool = createPool(`postgres://postgres@127.0.0.1:${await freePort()}/postgres`, config, () => undefined);
      app = createApp({ pool, config, log: () => undefined });
    });
    afterAll(() => pool.end());

    it.each(paths)('on GET %s', async (path) => {
      const res = await request(app).get(`/v2${path}`);
      expect(res.status).toBe(503);
      checker.expectDocumented(res, path);
    });
  });
});
