import request from 'supertest';
import { testApp, type TestApp } from './support/app';
import { countRaw, expectInvalid } from './support/expect';

let t: TestApp;
beforeAll(() => (t = testApp()));
afterAll(() => t.close());

const returns: Record<number, object> = {
  5001: {
    'Rider ID': 102,
    '3PL': '100%_Express',
    'Product ID': 10,
    'Product Name': 'Helmet',
    'Product Variation ID': 11,
    'Product Variation Name': 'M',
    'Return Date': '2024-05-02 00:00:00',
    'App User ID': 2,
    'Return Condition': 'Damaged',
  },
  5002: {
    'Rider ID': 103,
    '3PL': 'O\'Neil "Quick" Riders',
    'Product ID': 20,
    'Product Name': 'Delivery Bag',
    'Product Variation ID': 21,
    'Product Variation Name': 'Large Box',
    'Return Date': '2024-05-31 23:59:59',
    'App User ID': 1,
    'Return Condition': 'Good',
  },
};

const exchanges: Record<number, object> = {
  7001: {
    'Rider ID': 101,
    '3PL': 'Swift & Co',
    'Old Product ID': 10,
    'Old Product Name': 'Helmet',
    'Old Product Variation ID': 11,
    'Old Product Variation Name': 'M',
    'New Product ID': 10,
    'New Product Name': 'Helmet',
    'New Product Variation ID': 12,
    'New Product Variation Name': 'L',
    'Exchange Date': '2024-06-10 09:30:00',
    'Exchange Type': 'Size change',
    'Replacement Type': 'Exchange',
    'App User ID': 1,
  },
  7002: {
    'Rider ID': 104,
    '3PL': 'توصيل سريع',
    'Old Product ID': 10,
    'Old Product Name': 'Helmet',
    'Old Product Variation ID': 12,
    'Old Product Variation Name': 'L',
    'New Product ID': 10,
    'New Product Name': 'Helmet',
    'New Product Variation ID': 11,
    'New Product Variation Name': 'M',
    'Exchange Date': '2024-04-01 10:00:00',
    'Exchange Type': 'Lost item',
    'Replacement Type': 'Lost',
    'App User ID': 2,
  },
  7003: {
    // eslint-disable-next-line no-loss-of-precision -- as JSON.parse reads it; the exact text is checked separately
    'Rider ID': 9007199254740993,
    '3PL': 'Swift & Co',
    'Old Product ID': 10,
    'Old Product Name': 'Helmet',
    'Old Product Variation ID': 12,
    'Old Product Variation Name': 'L',
    'New Product ID': 10,
    'New Product Name': 'Helmet',
    'New Product Variation ID': 12,
    'New Product Variation Name': 'L',
    'Exchange Date': '2024-08-01 00:00:00',
    'Exchange Type': 'تلف',
    'Replacement Type': 'Accident',
    'App User ID': 1,
  },
};

const getReturns = async (query: string) => (await request(t.app).get(`/v2/product-returns${query}`).expect(200)).body;
const getExchanges = async (query: string) => (await request(t.app).get(`/v2/product-exchanges${query}`).expect(200)).body;

describe('GET /v2/product-returns', () => {
  it('lists every return by return date then id, with the exact keys', async () => {
    const body = await getReturns('');
    expect(body).toEqual([returns[5001], returns[5002]]);
    expect(Object.keys(body[0])).toEqual(Object.keys(returns[5001]));
  });

  it('reads the return date range inclusively by calendar day', async () => {
    expect(await getReturns('?return_date_from=2024-05-02&return_date_to=2024-05-02')).toEqual([returns[5001]]);
    expect(await getReturns('?return_date_to=2024-05-31')).toEqual([returns[5001], returns[5002]]);
    expect(await getReturns('?return_date_from=2024-05-03')).toEqual([returns[5002]]);
    expect(await getReturns('?return_date_to=2024-05-01')).toEqual([]);
    expect(await getReturns('?return_date_from=2024-06-01')).toEqual([]);
  });

  it('filters by rider, 3PL, product, variation and condition (exact, case-sensitive)', async () => {
    expect(await getReturns('?rider_id=102')).toEqual([returns[5001]]);
    expect(await getReturns('?3pl=100%25_Express')).toEqual([returns[5001]]);
    expect(await getReturns('?3pl=100%25-Express')).toEqual([]);
    expect(await getReturns('?product_id=20')).toEqual([returns[5002]]);
    expect(await getReturns('?variation_id=11')).toEqual([returns[5001]]);
    expect(await getReturns('?return_condition=Good')).toEqual([returns[5002]]);
    expect(await getReturns('?return_condition=good')).toEqual([]);
    expect(await getReturns('?return_condition=Good&rider_id=102')).toEqual([]);
  });
});

describe('GET /v2/product-exchanges', () => {
  it('lists every exchange by exchange date then id, with the exact keys', async () => {
    const res = await request(t.app).get('/v2/product-exchanges').expect(200);
    expect(res.body).toEqual([exchanges[7002], exchanges[7001], exchanges[7003]]);
    expect(Object.keys(res.body[0])).toEqual(Object.keys(exchanges[7001]));
    expect(countRaw(res.text, 'Rider ID', '9007199254740993')).toBe(1);
  });

  it.each([
    ['Lost', [7002]],
    ['Accident', [7003]],
    ['Exchange', [7001]],
  ])('replacement_type=%s keeps only those', async (value, expected) => {
    expect(await getExchanges(`?replacement_type=${value}`)).toEqual(expected.map((id) => exchanges[id]));
  });

  it('rejects a replacement type not written exactly as Lost, Accident or Exchange', async () => {
    const errors = expectInvalid(await request(t.app).get('/v2/product-exchanges?replacement_type=lost'), 'replacement_type');
    expect(errors.replacement_type[0]).toBe('must be one of: Lost, Accident, Exchange');
  });

  it('filters the old side by product_id / variation_id and the new side by new_product_id / new_variation_id', async () => {
    expect(await getExchanges('?variation_id=11')).toEqual([exchanges[7001]]);
    expect(await getExchanges('?new_variation_id=11')).toEqual([exchanges[7002]]);
    expect(await getExchanges('?new_variation_id=12')).toEqual([exchanges[7001], exchanges[7003]]);
    expect(await getExchanges('?product_id=10')).toEqual([exchanges[7002], exchanges[7001], exchanges[7003]]);
    expect(await getExchanges('?new_product_id=20')).toEqual([]);
  });

  it('reads the exchange date range inclusively by calendar day', async () => {
    expect(await getExchanges('?exchange_date_from=2024-06-10&exchange_date_to=2024-06-10')).toEqual([exchanges[7001]]);
    expect(await getExchanges('?exchange_date_to=2024-07-31')).toEqual([exchanges[7002], exchanges[7001]]);
    expect(await getExchanges('?exchange_date_from=2024-08-01')).toEqual([exchanges[7003]]);
  });

  it('filters by rider, 3PL and exchange type (exact text, Arabic included)', async () => {
    expect(await getExchanges('?rider_id=104')).toEqual([exchanges[7002]]);
    expect(await getExchanges('?rider_id=9007199254740993')).toEqual([exchanges[7003]]);
    expect(await getExchanges('?3pl=Swift%20%26%20Co')).toEqual([exchanges[7001], exchanges[7003]]);
    expect(await getExchanges(`?exchange_type=${encodeURIComponent('تلف')}`)).toEqual([exchanges[7003]]);
    expect(await getExchanges('?exchange_type=Size%20change')).toEqual([exchanges[7001]]);
    expect(await getExchanges('?exchange_type=size%20change')).toEqual([]);
  });
});
