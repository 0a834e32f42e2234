import request from 'supertest';
import { testApp, type TestApp } from './support/app';
import { countRaw, expectInvalid } from './support/expect';

let t: TestApp;
beforeAll(() => (t = testApp()));
afterAll(() => t.close());

// equipment, variation, names, assigned, assign_type, returned — by fixture assignment id.
const items: Record<number, [number, number, string, string, string, string, string | null]> = {
  1001: [10, 11, 'Helmet', 'M', '2024-05-01 00:00:00', 'assign', '2024-06-10 09:30:00'],
  1002: [20, 21, 'Delivery Bag', 'Large Box', '2024-05-01 23:59:59', 'assign', null],
  1003: [10, 12, 'Helmet', 'L', '2024-06-10 09:30:00', 'exchange', null],
  1004: [10, 11, 'Helmet', 'M', '2024-04-30 23:59:59', 'assign', '2024-05-02 00:00:00'],
  1005: [20, 21, 'Delivery Bag', 'Large Box', '2024-05-02 00:00:00', 'assign', null],
  1006: [20, 21, 'Delivery Bag', 'Large Box', '2024-05-15 12:00:00', 'assign', '2024-05-31 23:59:59'],
  1007: [10, 12, 'Helmet', 'L', '2024-03-01 08:00:00', 'assign', '2024-04-01 10:00:00'],
  1008: [10, 11, 'Helmet', 'M', '2024-04-01 10:00:00', 'exchange', null],
  1009: [20, 21, 'Delivery Bag', 'Large Box', '2024-07-01 10:00:00', 'assign', null],
  1010: [20, 21, 'Delivery Bag', 'Large Box', '2024-07-02 10:00:00', 'assign', null],
  1011: [10, 12, 'Helmet', 'L', '2024-07-03 10:00:00', 'assign', '2024-08-01 00:00:00'],
  1012: [10, 12, 'Helmet', 'L', '2024-08-01 00:00:00', 'exchange', null],
  1013: [10, 11, 'Helmet', 'M', '2024-07-01 10:00:00', 'assign', null],
};
const riders: Record<string, [string, string]> = {
  '101': ['Swift & Co', 'AE'],
  '102': ['100%_Express', 'AE'],
  '103': ['O\'Neil "Quick" Riders', 'SA'],
  '104': ['توصيل سريع', 'SA'],
  '105': ['swift & co', 'AE'],
  '106': ['100%-Express', 'AE'],
  '9007199254740993': ['Swift & Co', 'SA'],
};

const entry = (riderId: string, ...assignmentIds: number[]) => ({
  rider_id: riderId,
  '3pl_name': riders[riderId][0],
  country_code: riders[riderId][1],
  products: assignmentIds.map((id) => {
    const [equipment, variation, name, variationName, assigned, type, returned] = items[id];
    return {
      equipment_id: equipment,
      variation_id: variation,
      equipment_name: name,
      equipment_variation_name: variationName,
      assign_date: assigned,
      assign_type: type,
      return_date: returned,
      active: returned === null,
    };
  }),
});

const all = {
  '101': entry('101', 1001, 1002, 1003),
  '102': entry('102', 1004, 1005),
  '103': entry('103', 1006),
  '104': entry('104', 1007, 1008),
  '105': entry('105', 1009, 1013),
  '106': entry('106', 1010),
  big: entry('9007199254740993', 1011, 1012),
};

const page = async (query: string) => {
  const res = await request(t.app).get(`/v2/rider-equipment-list${query}`).expect(200);
  expect(Array.isArray(res.body)).toBe(true);
  expect(res.body).toHaveLength(1);
  return res.body[0];
};

describe('GET /v2/rider-equipment-list', () => {
  it('answers one page envelope in an array: every rider with equipment, 100 per page by default', async () => {
    const res = await request(t.app).get('/v2/rider-equipment-list').expect(200);
    expect(res.body).toEqual([
      {
        current_page: 1,
        data: [all['101'], all['102'], all['103'], all['104'], all['105'], all['106'], all.big],
        total: 7,
        per_page: 100,
        last_page: 1,
      },
    ]);
    expect(Object.keys(res.body[0])).toEqual(['current_page', 'data', 'total', 'per_page', 'last_page']);
    expect(Object.keys(res.body[0].data[0])).toEqual(['rider_id', '3pl_name', 'country_code', 'products']);
    expect(Object.keys(res.body[0].data[0].products[0])).toEqual([
      'equipment_id',
      'variation_id',
      'equipment_name',
      'equipment_variation_name',
      'assign_date',
      'assign_type',
      'return_date',
      'active',
    ]);
  });

  it('pages with page and per_page, and a page past the end is empty with the true total and last_page', async () => {
    expect(await page('?per_page=3')).toEqual({
      current_page: 1,
      data: [all['101'], all['102'], all['103']],
      total: 7,
      per_page: 3,
      last_page: 3,
    });
    expect(await page('?per_page=3&page=2')).toEqual({
      current_page: 2,
      data: [all['104'], all['105'], all['106']],
      total: 7,
      per_page: 3,
      last_page: 3,
    });
    expect(await page('?per_page=3&page=3')).toEqual({ current_page: 3, data: [all.big], total: 7, per_page: 3, last_page: 3 });
    expect(await page('?per_page=3&page=4')).toEqual({ current_page: 4, data: [], total: 7, per_page: 3, last_page: 3 });
    expect(await page('?per_page=7')).toMatchObject({ total: 7, last_page: 1 });
    expect(await page('?per_page=1000&page=001')).toMatchObject({ current_page: 1, per_page: 1000, total: 7 });
  });

  it('active=1 keeps only equipment still held and the riders holding some', async () => {
    expect(await page('?active=1')).toEqual({
      current_page: 1,
      data: [
        entry('101', 1002, 1003),
        entry('102', 1005),
        entry('104', 1008),
        entry('105', 1009, 1013),
        entry('106', 1010),
        entry('9007199254740993', 1012),
      ],
      total: 6,
      per_page: 100,
      last_page: 1,
    });
    expect(await page('?active=TRUE')).toMatchObject({ total: 6 });
  });

  it('active=0 keeps only returned equipment and the riders who returned some', async () => {
    expect(await page('?active=0')).toEqual({
      current_page: 1,
      data: [entry('101', 1001), entry('102', 1004), entry('103', 1006), entry('104', 1007), entry('9007199254740993', 1011)],
      total: 5,
      per_page: 100,
      last_page: 1,
    });
  });

  it('filters by rider and by exact, case-sensitive 3PL name', async () => {
    expect(await page('?rider_id=9007199254740993')).toEqual({ current_page: 1, data: [all.big], total: 1, per_page: 100, last_page: 1 });
    expect(await page('?3pl_name=Swift%20%26%20Co')).toMatchObject({ data: [all['101'], all.big], total: 2 });
    expect(await page('?3pl_name=swift%20%26%20co')).toMatchObject({ data: [all['105']], total: 1 });
    expect(await page('?3pl_name=100%25_Express&active=0')).toMatchObject({ data: [entry('102', 1004)], total: 1 });
    expect(await page('?rider_id=107')).toEqual({ current_page: 1, data: [], total: 0, per_page: 100, last_page: 1 });
  });

  it('writes rider_id as text so ids past 2^53 stay exact', async () => {
    const res = await request(t.app).get('/v2/rider-equipment-list?rider_id=9007199254740993').expect(200);
    expect(countRaw(res.text, 'rider_id', '"9007199254740993"')).toBe(1);
  });

  it.each(['per_page=0', 'per_page=1001', 'page=0', 'page=-1', 'page=1.5', 'per_page=abc'])(
    'rejects %s rather than clamping it',
    async (query) => {
      const res = await request(t.app).get(`/v2/rider-equipment-list?${query}`);
      const errors = expectInvalid(res, query.split('=')[0]);
      expect(errors[query.split('=')[0]][0]).toMatch(/^must be a whole number from 1 to/);
    },
  );
});
