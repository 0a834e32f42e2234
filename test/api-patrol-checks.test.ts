import request from 'supertest';
import { testApp, type TestApp } from './support/app';
import { countRaw } from './support/expect';

let t: TestApp;
beforeAll(() => (t = testApp()));
afterAll(() => t.close());

const ids = async (query: string, app = t.app) => {
  const res = await request(app).get(`/v2/patrollerchecks${query}`).expect(200);
  return (res.body as Array<{ ID: number }>).map((check) => check.ID);
};

describe('GET /v2/patrollerchecks', () => {
  it('returns every check, ordered by ID, when no parameter is given', async () => {
    expect(await ids('')).toEqual([9001, 9002, 9003, 9004]);
  });

  it('writes a check with the exact keys, formats and nested arrays of the contract', async () => {
    const res = await request(t.app).get('/v2/patrollerchecks?rider_id=101').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual([
      {
        ID: 9001,
        Rider_ID: 101,
        Rider_name: 'Ahmed Khan',
        '3PL': 'Swift & Co',
        Tpatroller_ID: 1,
        Check_date: '2024-05-01 00:00:00',
        ID_validation: 1,
        License_plate: 1,
        Reported_item: [
          {
            imageUrl: 'https://img.test/c9001-1.jpg',
            gearName: 'Helmet - M',
            gearBaseName: 'Helmet',
            gearVariationName: 'M',
            gearId: '10',
            variationId: '11',
            gearAssignedOn: '01-05-2024',
            eligibleForExchange: '28-10-2024',
            itemStatus: 'Good',
            categoryId: 1,
            categoryName: 'Helmets',
          },
          {
            imageUrl: 'https://img.test/c9001-2.jpg',
            gearName: 'Delivery Bag - Large Box',
            gearBaseName: 'Delivery Bag',
            gearVariationName: 'Large Box',
            gearId: '20',
            variationId: '21',
            gearAssignedOn: '01-05-2024',
            eligibleForExchange: '01-05-2025',
            itemStatus: 'Damaged',
            categoryId: 2,
            categoryName: 'Bags',
          },
        ],
        Questioner: [
          { question: 'Is the helmet worn?', answer: 'Yes', imageUrl: null, score: '2', category: 'Equipment' },
          { question: 'Which items are damaged?', answer: ['Helmet', 'Bag'], imageUrl: null, score: '-2', category: 'Equipment' },
          { question: 'Photo of the bike', answer: null, imageUrl: 'https://img.test/c9001-bike.jpg', score: null, category: 'Vehicle' },
        ],
        Sticker_validation: 1,
        Fake_ID_note: { note: null, images: [] },
      },
    ]);
    expect(Object.keys(res.body[0])).toEqual([
      'ID',
      'Rider_ID',
      'Rider_name',
      '3PL',
      'Tpatroller_ID',
      'Check_date',
      'ID_validation',
      'License_plate',
      'Reported_item',
      'Questioner',
      'Sticker_validation',
      'Fake_ID_note',
    ]);
  });

  it('writes failed validations as 0, a note with its images, and empty arrays for a check with none', async () => {
    const res = await request(t.app).get('/v2/patrollerchecks?rider_id=102').expect(200);
    expect(res.body).toEqual([
      expect.objectContaining({
        ID: 9002,
        Check_date: '2024-05-31 23:59:59',
        ID_validation: 0,
        License_plate: 1,
        Sticker_validation: 0,
        Reported_item: [],
        Questioner: [{ question: 'Is the helmet worn?', answer: 'No', imageUrl: null, score: '-3', category: 'Equipment' }],
        Fake_ID_note: { note: 'ID photo does not match', images: ['https://img.test/fake-1.jpg', 'https://img.test/fake-2.jpg'] },
      }),
    ]);
  });

  it('keeps ids past 2^53 exact, in filters and in the answer', async () => {
    const res = await request(t.app).get('/v2/patrollerchecks?tpatroller_id=9007199254740995').expect(200);
    expect(countRaw(res.text, 'Rider_ID', '9007199254740993')).toBe(1);
    expect(countRaw(res.text, 'Tpatroller_ID', '9007199254740995')).toBe(1);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ ID: 9004, Fake_ID_note: { note: 'Expired card', images: [] } });
    expect(await ids('?rider_id=9007199254740993')).toEqual([9004]);
    expect(await ids('?rider_id=9007199254740992')).toEqual([]);
  });

  it('filters by patroller and by rider (leading zeros allowed)', async () => {
    expect(await ids('?tpatroller_id=1')).toEqual([9001, 9003]);
    expect(await ids('?tpatroller_id=2')).toEqual([9002]);
    expect(await ids('?rider_id=0101')).toEqual([9001]);
    expect(await ids('?rider_id=999')).toEqual([]);
  });

  describe('check date range, inclusive by calendar day', () => {
    it('includes a check at 00:00:00 on check_date_from and excludes one a second before', async () => {
      expect(await ids('?check_date_from=2024-05-01')).toEqual([9001, 9002, 9003]);
    });
    it('includes a check at 23:59:59 on check_date_to and excludes one at 00:00:00 the next day', async () => {
      expect(await ids('?check_date_to=2024-05-31')).toEqual([9001, 9002, 9004]);
    });
    it('combines both bounds, including a single-day range', async () => {
      expect(await ids('?check_date_from=2024-05-01&check_date_to=2024-05-31')).toEqual([9001, 9002]);
      expect(await ids('?check_date_from=2024-05-01&check_date_to=2024-05-01')).toEqual([9001]);
      expect(await ids('?check_date_from=2024-06-01&check_date_to=2024-06-01')).toEqual([9003]);
      expect(await ids('?check_date_to=2024-04-30')).toEqual([9004]);
    });
  });

  it.each([
    ['1', [9001, 9003]],
    ['true', [9001, 9003]],
    ['TRUE', [9001, 9003]],
    ['True', [9001, 9003]],
    ['0', [9002, 9004]],
    ['false', [9002, 9004]],
    ['FALSE', [9002, 9004]],
    ['fAlSe', [9002, 9004]],
  ])('is_validation=%s keeps the matching checks', async (literal, expected) => {
    expect(await ids(`?is_validation=${literal}`)).toEqual(expected);
  });

  it('filters by license plate and sticker validation, and combines filters with AND', async () => {
    expect(await ids('?license_plate=0')).toEqual([9003, 9004]);
    expect(await ids('?license_plate=true')).toEqual([9001, 9002]);
    expect(await ids('?sticker_validation=0')).toEqual([9002, 9004]);
    expect(await ids('?sticker_validation=1')).toEqual([9001, 9003]);
    expect(await ids('?is_validation=0&sticker_validation=false&license_plate=1')).toEqual([9002]);
  });

  it('treats empty values as not supplied', async () => {
    expect(await ids('?rider_id=&check_date_from=&is_validation=')).toEqual([9001, 9002, 9003, 9004]);
  });

  it('writes datetimes and reads day bounds in the service time zone', async () => {
    const dubai = testApp('fixture', { TIME_ZONE: 'Asia/Dubai' });
    try {
      // 9004 is 2024-04-30 23:59:59 UTC, which is 2024-05-01 03:59:59 in Dubai (UTC+4).
      expect(await ids('?check_date_from=2024-05-01&check_date_to=2024-05-01', dubai.app)).toEqual([9001, 9004]);
      const res = await request(dubai.app).get('/v2/patrollerchecks?rider_id=9007199254740993').expect(200);
      expect(res.body[0].Check_date).toBe('2024-05-01 03:59:59');
    } finally {
      await dubai.close();
    }
  });
});
