import request from 'supertest';
import { allOperations } from '../src/api/v2/operations';
import { testApp, type TestApp } from './support/app';
import { expectInvalid } from './support/expect';

let t: TestApp;
beforeAll(() => (t = testApp()));
afterAll(() => t.close());

const get = (path: string) => request(t.app).get(path);
// Every operation of the registry, so that a new one gets these checks without a word.
const endpoints = allOperations.map(({ path }) => path);

describe('bad query parameters are a 400 problem naming the parameter', () => {
  it('answers the documented problem+json shape', async () => {
    const res = await get('/v2/product-returns?rider_id=abc');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(res.text)).toEqual({
      type: '/problems/invalid-query-parameters',
      title: 'Invalid query parameters',
      status: 400,
      detail: 'rider_id must be a whole number from 1 to 9223372036854775807',
      errors: { rider_id: ['must be a whole number from 1 to 9223372036854775807'] },
    });
  });

  it.each(endpoints)('%s rejects an unknown parameter and lists the accepted ones', async (path) => {
    const errors = expectInvalid(await get(`/v2${path}?riderid=1`), 'riderid');
    expect(errors.riderid[0]).toMatch(/^is not a known parameter; accepted parameters are: /);
  });

  it('lists exactly the accepted parameters of the operation', async () => {
    const errors = expectInvalid(await get('/v2/questioner?country=1'), 'country');
    expect(errors.country).toEqual(['is not a known parameter; accepted parameters are: country_id']);
  });

  it('treats parameter names case-sensitively', async () => {
    expectInvalid(await get('/v2/assign-list?Rider_ID=101'), 'Rider_ID');
    expectInvalid(await get('/v2/assign-list?3PL=x'), '3PL');
  });

  it('rejects a repeated parameter', async () => {
    const errors = expectInvalid(await get('/v2/assign-list?rider_id=101&rider_id=102'), 'rider_id');
    expect(errors.rider_id).toEqual(['must be given at most once']);
    expectInvalid(await get('/v2/assign-list?rider_id=&rider_id='), 'rider_id');
  });

  it.each(['rider_id[]=1', 'rider_id[$gt]=1', 'rider_id[0]=1'])('rejects the bracket form %s', async (query) => {
    const name = query.split('=')[0];
    const errors = expectInvalid(await get(`/v2/assign-list?${query}`), name);
    expect(errors[name]).toEqual(['bracket forms are not accepted; give rider_id=value once']);
  });

  it.each(['0', 'abc', '1.5', '-1', '+1', '1e3', '9223372036854775808', '99999999999999999999', '%201', '0x10'])(
    'rejects the bigint %j',
    async (value) => {
      const errors = expectInvalid(await get(`/v2/assign-list?rider_id=${value}`), 'rider_id');
      expect(errors.rider_id).toEqual(['must be a whole number from 1 to 9223372036854775807']);
    },
  );

  it('accepts the largest bigint and finds nothing with it', async () => {
    const res = await get('/v2/patrollerchecks?rider_id=9223372036854775807&tpatroller_id=9223372036854775807').expect(200);
    expect(res.body).toEqual([]);
  });

  it.each([
    '2024-02-30',
    '2023-02-29',
    '2024-13-01',
    '2024-00-10',
    '20240101',
    '2024-060',
    '2024-1-01',
    '2024-01-01T00:00:00',
    '01-05-2024',
    'yesterday',
  ])('rejects the date %s', async (value) => {
    const errors = expectInvalid(await get(`/v2/patrollerchecks?check_date_from=${value}`), 'check_date_from');
    expect(errors.check_date_from).toEqual(['must be a real calendar day written YYYY-MM-DD']);
  });

  it('accepts 29 February of a leap year', async () => {
    await get('/v2/patrollerchecks?check_date_from=2024-02-29').expect(200);
  });

  it.each([
    ['/patrollerchecks', 'check_date'],
    ['/assign-list', 'assign_date'],
    ['/riders', 'assign_date'],
    ['/product-returns', 'return_date'],
    ['/product-exchanges', 'exchange_date'],
  ])('%s rejects a %s_from later than its _to', async (path, prefix) => {
    const errors = expectInvalid(await get(`/v2${path}?${prefix}_from=2024-05-02&${prefix}_to=2024-05-01`), `${prefix}_to`);
    expect(errors[`${prefix}_to`]).toEqual([`must not be before ${prefix}_from (2024-05-02)`]);
  });

  it.each(['yes', 'no', '2', 't', 'f', 'on', 'truee'])('rejects the boolean %s', async (value) => {
    const errors = expectInvalid(await get(`/v2/patrollerchecks?is_validation=${value}`), 'is_validation');
    expect(errors.is_validation).toEqual(['must be one of 1, 0, true, false (any letter case)']);
    expectInvalid(await get(`/v2/rider-equipment-list?active=${value}`), 'active');
  });

  it('rejects assign_type other than 0 or 1', async () => {
    for (const value of ['2', 'true', 'Manual', '01']) {
      const errors = expectInvalid(await get(`/v2/assign-list?assign_type=${value}`), 'assign_type');
      expect(errors.assign_type).toEqual(['must be one of: 0, 1']);
    }
  });

  it('accepts text up to 255 characters and rejects longer text or a NUL', async () => {
    await get(`/v2/assign-list?3pl=${'a'.repeat(255)}`).expect(200);
    expectInvalid(await get(`/v2/assign-list?3pl=${'a'.repeat(256)}`), '3pl');
    expectInvalid(await get('/v2/product-returns?return_condition=Go%00od'), 'return_condition');
    expectInvalid(await get('/v2/rider-equipment-list?3pl_name=%00'), '3pl_name');
    expectInvalid(await get('/v2/product-exchanges?exchange_type=a%00'), 'exchange_type');
  });

  it('rejects broken percent-encoding instead of searching for mangled text', async () => {
    // A lone byte of a two-byte UTF-8 letter, a % without two hex digits, a cut three-byte sequence.
    for (const bad of ['%C3', '%ZZ', 'Swift%20%E2%82', '100%']) {
      const errors = expectInvalid(await get(`/v2/assign-list?3pl=${bad}`), '3pl');
      expect(errors['3pl']).toEqual(['is not valid URL encoding: % must start a %XX pair, and the bytes must be UTF-8 text']);
    }
    // Only the broken one is named; well-encoded text (é, a space, a %) is searched as it is.
    expectInvalid(await get('/v2/assign-list?3pl=%C3%A9&rider_id=%C3'), 'rider_id');
    await get('/v2/assign-list?3pl=Caf%C3%A9+100%25').expect(200);
    // No query at all, or an empty one, is no error.
    await get('/v2/questioner').expect(200);
    await get('/v2/questioner?').expect(200);
    expect((await get('/admin/equipment/assignments?3pl=%C3')).status).toBe(400);
  });

  it('reports every bad parameter of a request at once', async () => {
    const errors = expectInvalid(
      await get('/v2/patrollerchecks?rider_id=x&is_validation=maybe&check_date_to=2024-02-30'),
      'rider_id',
      'is_validation',
      'check_date_to',
    );
    expect(errors.rider_id).toHaveLength(1);
  });

  it('never lets a bad value reach the database', async () => {
    const res = await get('/v2/assign-list?rider_id=1%27%20OR%201=1--');
    expectInvalid(res, 'rider_id');
    expect(t.logs).toEqual([]);
  });
});
