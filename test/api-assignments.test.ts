import request from 'supertest';
import { testApp, type TestApp } from './support/app';
import { countRaw, expectInvalid } from './support/expect';

let t: TestApp;
beforeAll(() => (t = testApp()));
afterAll(() => t.close());

// The fixture's assignments, written out by hand:
// rider, 3PL, product, product name, variation, variation name, assigned, assigned by, type, returned.
// eslint-disable-next-line no-loss-of-precision -- the rounding is what this constant stands for
const BIG = 9007199254740993; // parses to 2^53; the exact text is checked separately
const fixture: Record<number, [number, string, number, string, number, string, string, string, string, string | null]> = {
  1001: [101, 'Swift & Co', 10, 'Helmet', 11, 'M', '2024-05-01 00:00:00', 'Store Keeper', 'Manual', '2024-06-10 09:30:00'],
  1002: [101, 'Swift & Co', 20, 'Delivery Bag', 21, 'Large Box', '2024-05-01 23:59:59', 'Hub Manager', 'Physical', null],
  1003: [101, 'Swift & Co', 10, 'Helmet', 12, 'L', '2024-06-10 09:30:00', 'Store Keeper', 'Physical', null],
  1004: [102, '100%_Express', 10, 'Helmet', 11, 'M', '2024-04-30 23:59:59', 'Store Keeper', 'Manual', '2024-05-02 00:00:00'],
  1005: [102, '100%_Express', 20, 'Delivery Bag', 21, 'Large Box', '2024-05-02 00:00:00', 'Hub Manager', 'Manual', null],
  1006: [
    103,
    'O\'Neil "Quick" Riders',
    20,
    'Delivery Bag',
    21,
    'Large Box',
    '2024-05-15 12:00:00',
    'Store Keeper',
    'Physical',
    '2024-05-31 23:59:59',
  ],
  1007: [104, 'توصيل سريع', 10, 'Helmet', 12, 'L', '2024-03-01 08:00:00', 'Hub Manager', 'Manual', '2024-04-01 10:00:00'],
  1008: [104, 'توصيل سريع', 10, 'Helmet', 11, 'M', '2024-04-01 10:00:00', 'Hub Manager', 'Physical', null],
  1009: [105, 'swift & co', 20, 'Delivery Bag', 21, 'Large Box', '2024-07-01 10:00:00', 'Store Keeper', 'Manual', null],
  1010: [106, '100%-Express', 20, 'Delivery Bag', 21, 'Large Box', '2024-07-02 10:00:00', 'Store Keeper', 'Manual', null],
  1011: [BIG, 'Swift & Co', 10, 'Helmet', 12, 'L', '2024-07-03 10:00:00', 'Store Keeper', 'Physical', '2024-08-01 00:00:00'],
  1012: [BIG, 'Swift & Co', 10, 'Helmet', 12, 'L', '2024-08-01 00:00:00', 'Store Keeper', 'Physical', null],
  1013: [105, 'swift & co', 10, 'Helmet', 11, 'M', '2024-07-01 10:00:00', 'Hub Manager', 'Physical', null],
};

const assignment = (id: number) => {
  const [rider, company, product, productName, variation, variationName, assigned, by, type] = fixture[id];
  return {
    'Rider ID': rider,
    '3PL': company,
    'Product ID': product,
    'Product Name': productName,
    'Product Variation ID': variation,
    'Product Variation Name': variationName,
    'Assign Date': assigned,
    'Assignee Name': by,
    'Assign Type': type,
  };
};

const product = (id: number) => {
  const [, , productId, productName, variation, variationName, assigned, by, type, returned] = fixture[id];
  return {
    'Product ID': productId,
    'Product Name': productName,
    'Product Variation ID': variation,
    'Product Variation Name': variationName,
    'Assign Date': assigned,
    'Assigne Name': by,
    'Manual Assign or Physical Assign': type,
    'Returned at': returned,
  };
};

const rider = (...assignmentIds: number[]) => ({
  'Rider ID': fixture[assignmentIds[0]][0],
  '3PL': fixture[assignmentIds[0]][1],
  Products: assignmentIds.map(product),
});

const assignList = async (query: string) => (await request(t.app).get(`/v2/assign-list${query}`).expect(200)).body;
const riders = async (query: string) => (await request(t.app).get(`/v2/riders${query}`).expect(200)).body;

describe('GET /v2/assign-list', () => {
  it('lists every assignment, returned or not, by assign date then id', async () => {
    const body = await assignList('');
    expect(body).toEqual([1007, 1008, 1004, 1001, 1002, 1005, 1006, 1003, 1009, 1013, 1010, 1011, 1012].map(assignment));
    expect(Object.keys(body[0])).toEqual([
      'Rider ID',
      '3PL',
      'Product ID',
      'Product Name',
      'Product Variation ID',
      'Product Variation Name',
      'Assign Date',
      'Assignee Name',
      'Assign Type',
    ]);
  });

  it('filters by rider, product and variation', async () => {
    expect(await assignList('?rider_id=101')).toEqual([1001, 1002, 1003].map(assignment));
    expect(await assignList('?product_id=20')).toEqual([1002, 1005, 1006, 1009, 1010].map(assignment));
    expect(await assignList('?variation_id=12')).toEqual([1007, 1003, 1011, 1012].map(assignment));
    expect(await assignList('?rider_id=101&variation_id=21')).toEqual([1002].map(assignment));
  });

  it('matches 3PL names exactly and case-sensitively; %, _, quotes and Arabic are plain characters', async () => {
    expect(await assignList('?3pl=Swift%20%26%20Co')).toEqual([1001, 1002, 1003, 1011, 1012].map(assignment));
    expect(await assignList('?3pl=swift%20%26%20co')).toEqual([1009, 1013].map(assignment));
    expect(await assignList('?3pl=SWIFT%20%26%20CO')).toEqual([]);
    expect(await assignList('?3pl=100%25_Express')).toEqual([1004, 1005].map(assignment));
    expect(await assignList('?3pl=100%25')).toEqual([]);
    expect(await assignList('?3pl=100__Express')).toEqual([]);
    expect(await assignList(`?3pl=${encodeURIComponent('O\'Neil "Quick" Riders')}`)).toEqual([1006].map(assignment));
    expect(await assignList(`?3pl=${encodeURIComponent('توصيل سريع')}`)).toEqual([1007, 1008].map(assignment));
  });

  it('reads the assign date range inclusively by calendar day', async () => {
    expect(await assignList('?assign_date_from=2024-05-01&assign_date_to=2024-05-01')).toEqual([1001, 1002].map(assignment));
    expect(await assignList('?assign_date_from=2024-07-01')).toEqual([1009, 1013, 1010, 1011, 1012].map(assignment));
    expect(await assignList('?assign_date_to=2024-04-30')).toEqual([1007, 1008, 1004].map(assignment));
  });

  it('maps assign_type 0 to Manual and 1 to Physical', async () => {
    expect(await assignList('?assign_type=0')).toEqual([1007, 1004, 1001, 1005, 1009, 1010].map(assignment));
    expect(await assignList('?assign_type=1')).toEqual([1008, 1002, 1006, 1003, 1013, 1011, 1012].map(assignment));
    expect(await assignList('?rider_id=101&assign_type=1')).toEqual([1002, 1003].map(assignment));
  });

  it('keeps a rider id past 2^53 exact', async () => {
    const res = await request(t.app).get('/v2/assign-list?rider_id=9007199254740993').expect(200);
    expect(res.body).toHaveLength(2);
    expect(countRaw(res.text, 'Rider ID', '9007199254740993')).toBe(2);
  });
});

describe('GET /v2/riders', () => {
  it('lists each rider with assignments once, by rider id, products by assign date then id', async () => {
    const res = await request(t.app).get('/v2/riders').expect(200);
    expect(res.body).toEqual([
      rider(1001, 1002, 1003),
      rider(1004, 1005),
      rider(1006),
      rider(1007, 1008),
      rider(1009, 1013),
      rider(1010),
      rider(1011, 1012),
    ]);
    expect(countRaw(res.text, 'Rider ID', '9007199254740993')).toBe(1);
    expect(Object.keys(res.body[0])).toEqual(['Rider ID', '3PL', 'Products']);
    expect(Object.keys(res.body[0].Products[0])).toEqual([
      'Product ID',
      'Product Name',
      'Product Variation ID',
      'Product Variation Name',
      'Assign Date',
      'Assigne Name',
      'Manual Assign or Physical Assign',
      'Returned at',
    ]);
  });

  it('keeps only matching products, and only riders that have one', async () => {
    expect(await riders('?product_id=20')).toEqual([rider(1002), rider(1005), rider(1006), rider(1009), rider(1010)]);
    expect(await riders('?assign_type=0&assign_date_from=2024-05-01')).toEqual([rider(1001), rider(1005), rider(1009), rider(1010)]);
    expect(await riders('?3pl=Swift%20%26%20Co&assign_date_to=2024-06-10')).toEqual([rider(1001, 1002, 1003)]);
    expect(await riders('?rider_id=107')).toEqual([]);
  });

  it('accepts user_id as another name for rider_id, but not both together', async () => {
    expect(await riders('?user_id=104')).toEqual([rider(1007, 1008)]);
    expectInvalid(await request(t.app).get('/v2/riders?user_id=104&rider_id=104'), 'user_id');
    expectInvalid(await request(t.app).get('/v2/assign-list?user_id=104'), 'user_id');
  });

  it('holds the same assignment records as /v2/assign-list', async () => {
    const list = await assignList('');
    const grouped = (await riders('')).flatMap((r: { Products: unknown[] }) => r.Products);
    expect(grouped).toHaveLength(list.length);
  });
});
