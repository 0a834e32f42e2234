import pg from 'pg';
import request from 'supertest';
import { DEMO_ANCHOR, seedDemo } from '../db/seeds/demo';
import { prepareDemo } from '../src/db/bootstrap';
import { migrateDatabase } from '../src/db/migrate';
import { testApp, type TestApp } from './support/app';
import { databaseUrl, testDatabases } from './support/databases';

// The demo database holds seedDemo({ riders: 300, seed: 42 }), the same data `npm start` loads.
// About fifty whole answers and two seeds of the demo: slow on a busy machine, never stuck.
jest.setTimeout(120000);
let t: TestApp;
beforeAll(() => (t = testApp('demo')));
afterAll(() => t.close());

const count = async (path: string) => {
  const res = await request(t.app).get(`/v2${path}`).expect(200);
  return path.startsWith('/rider-equipment-list') ? res.body[0].total : res.body.length;
};
const day = (datetime: string) => datetime.slice(0, 10);
const first = async (sql: string) => (await t.pool.query(sql)).rows[0];

describe('the default demo data', () => {
  it('gives every filter of every operation something to find', async () => {
    const check = (await request(t.app).get('/v2/patrollerchecks?rider_id=100001').expect(200)).body[0];
    const found: Record<string, number> = {
      tpatroller_id: await count(`/patrollerchecks?tpatroller_id=${check.Tpatroller_ID}`),
      check_rider: await count(`/patrollerchecks?rider_id=${check.Rider_ID}`),
      check_dates: await count(`/patrollerchecks?check_date_from=${day(check.Check_date)}&check_date_to=${day(check.Check_date)}`),
      country_id: await count(`/questioner?country_id=${(await first('SELECT country_id FROM questions LIMIT 1')).country_id}`),
    };
    for (const flag of ['is_validation', 'license_plate', 'sticker_validation']) {
      for (const value of ['0', '1']) found[`${flag}=${value}`] = await count(`/patrollerchecks?${flag}=${value}`);
    }

    const assignment = (await request(t.app).get('/v2/assign-list?rider_id=100001').expect(200)).body[0];
    const byAssignment = [
      `rider_id=${assignment['Rider ID']}`,
      `3pl=${encodeURIComponent(assignment['3PL'])}`,
      `product_id=${assignment['Product ID']}`,
      `variation_id=${assignment['Product Variation ID']}`,
      `assign_date_from=${day(assignment['Assign Date'])}&assign_date_to=${day(assignment['Assign Date'])}`,
      'assign_type=0',
      'assign_type=1',
    ];
    for (const query of byAssignment) {
      found[`assign-list?${query}`] = await count(`/assign-list?${query}`);
      found[`riders?${query}`] = await count(`/riders?${query}`);
    }

    const exchange = (await request(t.app).get('/v2/product-exchanges').expect(200)).body[0];
    for (const query of [
      `rider_id=${exchange['Rider ID']}`,
      `3pl=${encodeURIComponent(exchange['3PL'])}`,
      `product_id=${exchange['Old Product ID']}`,
      `variation_id=${exchange['Old Product Variation ID']}`,
      `new_product_id=${exchange['New Product ID']}`,
      `new_variation_id=${exchange['New Product Variation ID']}`,
      `exchange_date_from=${day(exchange['Exchange Date'])}&exchange_date_to=${day(exchange['Exchange Date'])}`,
      `exchange_type=${encodeURIComponent(exchange['Exchange Type'])}`,
      'replacement_type=Lost',
      'replacement_type=Accident',
      'replacement_type=Exchange',
    ]) {
      found[`product-exchanges?${query}`] = await count(`/product-exchanges?${query}`);
    }

    const ret = (await request(t.app).get('/v2/product-returns').expect(200)).body[0];
    for (const query of [
      `rider_id=${ret['Rider ID']}`,
      `3pl=${encodeURIComponent(ret['3PL'])}`,
      `product_id=${ret['Product ID']}`,
      `variation_id=${ret['Product Variation ID']}`,
      `return_date_from=${day(ret['Return Date'])}&return_date_to=${day(ret['Return Date'])}`,
      `return_condition=${encodeURIComponent(ret['Return Condition'])}`,
    ]) {
      found[`product-returns?${query}`] = await count(`/product-returns?${query}`);
    }

    for (const query of ['rider_id=100001', `3pl_name=${encodeURIComponent(assignment['3PL'])}`, 'active=0', 'active=1']) {
      found[`rider-equipment-list?${query}`] = await count(`/rider-equipment-list?${query}`);
    }

    const empty = Object.entries(found).filter(([, n]) => !(n > 0));
    expect(empty).toEqual([]);
  });

  it('holds the variety the contract describes', async () => {
    const facts = await first(`SELECT
      (SELECT count(DISTINCT jsonb_typeof(answer)) FROM patrol_check_answers) AS answer_kinds,
      (SELECT count(*) FROM patrol_check_answers WHERE answer IS NULL) AS null_answers,
      (SELECT count(*) FROM patrol_checks WHERE fake_id_note IS NOT NULL AND cardinality(fake_id_images) > 0) AS notes_with_images,
      (SELECT count(*) FROM patrol_checks WHERE fake_id_note IS NOT NULL AND cardinality(fake_id_images) = 0) AS notes_without_images,
      (SELECT count(DISTINCT assign_type) FROM assignments) AS assign_types,
      (SELECT count(*) FROM assignments WHERE deleted_at IS NULL) AS active,
      (SELECT count(*) FROM assignments WHERE deleted_at IS NOT NULL) AS returned,
      (SELECT count(*) FROM question_answers WHERE name_ar ~ '[\\u0600-\\u06FF]') AS arabic_names,
      (SELECT count(DISTINCT name) FROM companies) AS companies,
      (SELECT count(DISTINCT country_id) FROM riders) AS countries`);
    expect(facts).toMatchObject({ answer_kinds: '2', assign_types: '2' });
    for (const key of ['null_answers', 'notes_with_images', 'notes_without_images', 'active', 'returned', 'arabic_names']) {
      expect(Number(facts[key])).toBeGreaterThan(0);
    }
    expect(Number(facts.companies)).toBeGreaterThanOrEqual(3);
    expect(Number(facts.countries)).toBeGreaterThanOrEqual(3);
  });
});

describe('seedDemo', () => {
  it('gives the same data for the same seed and size, and other data for another seed', async () => {
    const admin = new pg.Client(process.env.TEST_ADMIN_URL);
    await admin.connect();
    const name = `${testDatabases().demo}_again`;
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = databaseUrl(process.env.TEST_ADMIN_URL!, name);
    const digest = `SELECT md5(string_agg(x, '|' ORDER BY x)) AS d FROM (
        SELECT a::text AS x FROM assignments a UNION ALL SELECT c::text FROM patrol_checks c
        UNION ALL SELECT s::text FROM patrol_check_answers s UNION ALL SELECT r::text FROM riders r) t`;
    try {
      await migrateDatabase(url);
      const client = new pg.Client(url);
      await client.connect();
      try {
        await seedDemo(client, { riders: 300, seed: 42 });
        const again = (await client.query(digest)).rows[0].d;
        expect(again).toBe((await t.pool.query(digest)).rows[0].d);
        await expect(seedDemo(client, { riders: 300, seed: 42 })).rejects.toThrow(/riders/);
        await client.query('TRUNCATE riders, countries, companies, patrollers, app_users, product_categories, products, questions CASCADE');
        await seedDemo(client, { riders: 300, seed: 43 });
        expect((await client.query(digest)).rows[0].d).not.toBe(again);
      } finally {
        await client.end();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});

describe('the demo npm start loads', () => {
  it('ends now, so the home page shows today’s checks, while seedDemo alone keeps its fixed dates', async () => {
    const admin = new pg.Client(process.env.TEST_ADMIN_URL);
    await admin.connect();
    const name = `${testDatabases().demo}_today`;
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = databaseUrl(process.env.TEST_ADMIN_URL!, name);
    try {
      const logs: string[] = [];
      const before = Date.now();
      await prepareDemo(url, (line) => logs.push(line));
      const client = new pg.Client(url);
      await client.connect();
      try {
        const newest = async (sql: string) => new Date((await client.query(sql)).rows[0].newest).getTime();
        for (const sql of ['SELECT max(checked_at) AS newest FROM patrol_checks', 'SELECT max(assigned_at) AS newest FROM assignments']) {
          const at = await newest(sql);
          expect(at).toBeLessThanOrEqual(Date.now());
          expect(at).toBeGreaterThan(before - 3 * 24 * 3600 * 1000); // the last few days, not 2026-10-30
        }
        expect(Number((await client.query('SELECT count(*) AS n FROM riders')).rows[0].n)).toBe(300);
        expect(logs.join('\n')).toMatch(/Loading demo data \(300 riders, seed 42, history up to \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\)/);
      } finally {
        await client.end();
      }
      // The tests' demo database, seeded without an anchor, ends the hour before 2026-10-31.
      expect(new Date((await t.pool.query('SELECT max(checked_at) AS newest FROM patrol_checks')).rows[0].newest).getTime()).toBeLessThan(
        DEMO_ANCHOR,
      );
      expect(
        new Date((await t.pool.query('SELECT max(checked_at) AS newest FROM patrol_checks')).rows[0].newest).getTime(),
      ).toBeGreaterThan(DEMO_ANCHOR - 24 * 3600 * 1000);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
