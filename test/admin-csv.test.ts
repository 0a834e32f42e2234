import http from 'node:http';
import request from 'supertest';
import { poolSettles, serve, testApp, type TestApp } from './support/app';

const BOM = '\uFEFF';
const today = () => new Date().toISOString().slice(0, 10);

describe('CSV downloads on the fixture', () => {
  let t: TestApp;
  beforeAll(() => (t = testApp('fixture')));
  afterAll(() => t.close());

  it.each([
    [
      '/admin/checks.csv?check_date_from=2024-05-01&check_date_to=2024-05-31&3pl=Swift%20%26%20Co',
      'patrol-checks_3pl-SwiftCo_2024-05-01_2024-05-31',
    ],
    ['/admin/checks.csv?result=failed&tpatroller_id=2&rider_id=102', 'patrol-checks_patroller-2_rider-102_result-failed'],
    ['/admin/equipment/assignments.csv?active=1&product_id=10&variation_id=12', 'assignments_product-10_variation-12_active-1'],
    ['/admin/equipment/riders.csv?3pl_name=100%25_Express', 'riders-with-equipment_3pl-100Express'],
    ['/admin/equipment/returns.csv?return_date_from=2024-05-01&return_condition=Good', 'returns_return-condition-Good_from-2024-05-01'],
    ['/admin/equipment/returns.csv?return_date_to=2024-05-31', 'returns_to-2024-05-31'],
    // Only safe characters: a value with none (Arabic) is named by its filter alone.
    [
      `/admin/equipment/exchanges.csv?exchange_type=${encodeURIComponent('تلف')}&3pl=${encodeURIComponent('O\'Neil "Quick" Riders')}`,
      'exchanges_3pl-ONeilQuickRiders_exchange-type',
    ],
    // Without filters, the list and the day; the attention lists keep their own names.
    ['/admin/equipment/returns.csv', `returns-${today()}`],
    ['/admin/attention/unchecked.csv?as_of=2024-06-01', 'attention-unchecked-2024-06-01'],
  ])('names the file of %s after the list and its filters', async (address, name) => {
    const res = await request(t.app).get(address).expect(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${name}.csv"`);
    expect(name).toMatch(/^[A-Za-z0-9._-]+$/);
  });

  it('downloads the matching checks, every column, as an attachment named after the list and its filters', async () => {
    const res = await request(t.app).get('/admin/checks.csv?is_validation=0').expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="patrol-checks_is-validation-0.csv"');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toBe(
      `${BOM}Check,Checked at,Rider ID,Rider,3PL,Patroller ID,Patroller,Result,ID,Plate,Sticker,Score,Items\n` +
        '9002,2024-05-31 23:59:59,102,Sara Ali,100%_Express,2,Patroller Two,"Failed: ID, sticker",Failed,Passed,Failed,-3,0\n' +
        '9004,2024-04-30 23:59:59,9007199254740993,Big Id Rider,Swift & Co,9007199254740995,Patroller Big,"Failed: ID, plate, sticker",Failed,Failed,Failed,,0\n',
    );
  });

  it('quotes what needs quoting (a well-kept library does it) and keeps the sort asked for', async () => {
    const res = await request(t.app).get('/admin/equipment/returns.csv?sort=returned_at&dir=asc').expect(200);
    expect(res.text).toBe(
      `${BOM}Returned at,Rider ID,Rider,3PL,Item,Product ID,Variation ID,Assigned at,Condition,Taken in by\n` +
        '2024-05-02 00:00:00,102,Sara Ali,100%_Express,Helmet / M,10,11,2024-04-30 23:59:59,Damaged,Hub Manager\n' +
        `2024-05-31 23:59:59,103,"Omar ""O"" Neil","O'Neil ""Quick"" Riders",Delivery Bag / Large Box,20,21,2024-05-15 12:00:00,Good,Store Keeper\n`,
    );
  });

  it('writes each list with its own filters: assignments held now, riders with their items, exchanges', async () => {
    const assignments = (await request(t.app).get('/admin/equipment/assignments.csv?active=1&3pl=Swift%20%26%20Co').expect(200)).text.split(
      '\n',
    );
    expect(assignments[0]).toBe(
      `${BOM}Assigned at,Rider ID,Rider,3PL,Item,Product ID,Variation ID,Assign type,Record,Assigned by,Returned at`,
    );
    expect(assignments.slice(1, -1)).toEqual([
      '2024-08-01 00:00:00,9007199254740993,Big Id Rider,Swift & Co,Helmet / L,10,12,Physical,From an exchange,Store Keeper,Held now',
      '2024-06-10 09:30:00,101,Ahmed Khan,Swift & Co,Helmet / L,10,12,Physical,From an exchange,Store Keeper,Held now',
      '2024-05-01 23:59:59,101,Ahmed Khan,Swift & Co,Delivery Bag / Large Box,20,21,Physical,Assigned,Hub Manager,Held now',
    ]);
    const riders = (await request(t.app).get('/admin/equipment/riders.csv?rider_id=101').expect(200)).text.split('\n');
    expect(riders.slice(0, 2)).toEqual([
      `${BOM}Rider ID,Rider,3PL,Country,Held,Returned,Items`,
      '101,Ahmed Khan,Swift & Co,AE,2,1,Delivery Bag / Large Box (held since 2024-05-01); Helmet / L (held since 2024-06-10); Helmet / M (returned 2024-06-10)',
    ]);
    const exchanges = (await request(t.app).get('/admin/equipment/exchanges.csv?replacement_type=Accident').expect(200)).text.split('\n');
    expect(exchanges[1]).toBe(
      '2024-08-01 00:00:00,9007199254740993,Big Id Rider,Swift & Co,Helmet / L,10,12,Helmet / L,10,12,تلف,Accident,Store Keeper',
    );
  });

  it("downloads a country's questionnaire one answer a row, Arabic kept as written", async () => {
    const res = await request(t.app).get('/admin/questionnaire.csv?country_id=2').expect(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="questionnaire-country-2.csv"');
    expect(res.text).toBe(
      `${BOM}Country,Question ID,Question,Type,Category,Answer position,Answer,Answer (Arabic),Score,Jump to,Skips\n` +
        'SA,304,Is the uniform clean?,MULTIPLE_CHOICE:SINGLE,Appearance,1,Yes,نعم,1,,\n' +
        'SA,304,Is the uniform clean?,MULTIPLE_CHOICE:SINGLE,Appearance,2,No,لا,0,,305 306\n',
    );
  });

  it('answers HEAD with the headers of a download, without running the export', async () => {
    const res = await request(t.app).head('/admin/checks.csv?is_validation=0').expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.text).toBeUndefined();
  });

  it('writes the header alone when nothing matches', async () => {
    const res = await request(t.app).get('/admin/equipment/exchanges.csv?rider_id=107').expect(200);
    expect(res.text).toBe(
      `${BOM}Exchanged at,Rider ID,Rider,3PL,Gave back,Old product ID,Old variation ID,Received,New product ID,New variation ID,Exchange type,Replacement,Processed by\n`,
    );
  });
});

describe('CSV downloads on the demo data', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof serve>>;
  let base: string;
  beforeAll(async () => {
    t = testApp('demo');
    server = await serve(t.app);
    base = server.base;
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });
  const count = async (sql: string) => Number((await t.pool.query(sql)).rows[0].n);

  it('streams every matching row, not one page, from a cursor, and gives the connection back', async () => {
    const res = await request(base).get('/admin/checks.csv').expect(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const lines = res.text.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + (await count('SELECT count(*) AS n FROM patrol_checks')));
    expect(lines.length).toBeGreaterThan(1000);
    const failed = (await request(base).get('/admin/equipment/assignments.csv?active=0').expect(200)).text.trimEnd().split('\n');
    expect(failed).toHaveLength(1 + (await count('SELECT count(*) AS n FROM assignments WHERE deleted_at IS NOT NULL')));
    await poolSettles(t.streamPool);
  });

  it('cancels the query and releases the connection when the client leaves half-way', async () => {
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}/admin/equipment/assignments.csv`, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
    });
    await poolSettles(t.streamPool);
    const { rows } = await t.pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid() AND query ILIKE '%assignments%'
          AND application_name LIKE '%/streams'`, // this app's downloads, not other files' pages on the same database
    );
    expect(rows[0].n).toBe(0);
  });
});
