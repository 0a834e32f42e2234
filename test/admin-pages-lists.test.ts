import request from 'supertest';
import { testApp, type TestApp } from './support/app';
import { optionsOf } from './support/html';
import { column, htmlPage, rows, text } from './support/admin-pages';

// The admin lists over the hand-written fixture (test/fixtures/fixture.sql): the patrol checks list
// (its filters, sorts, pages and CSV link) and the equipment lists, with exact rows, edges of date
// ranges, 3PL names with &, %, quotes and Arabic, and ids past 2^53.
let t: TestApp;
beforeAll(() => (t = testApp('fixture')));
afterAll(() => t.close());

const page = (path: string, status?: number) => htmlPage(t.app, path, status);

describe('patrol checks list', () => {
  it('lists every check, newest first, with its rider, 3PL, patroller and result (the three validations folded into Result)', async () => {
    const html = await page('/admin/checks');
    expect(rows(html)).toEqual([
      ['9003', '2024-06-01 00:00:00', '104', 'محمد علي', 'توصيل سريع', '1', 'Patroller One', 'Failed: plate', '1', '1'],
      ['9002', '2024-05-31 23:59:59', '102', 'Sara Ali', '100%_Express', '2', 'Patroller Two', 'Failed: ID, sticker', '-3', '0'],
      ['9001', '2024-05-01 00:00:00', '101', 'Ahmed Khan', 'Swift & Co', '1', 'Patroller One', 'Passed', '0', '2'],
      [
        '9004',
        '2024-04-30 23:59:59',
        '9007199254740993',
        'Big Id Rider',
        'Swift & Co',
        '9007199254740995',
        'Patroller Big',
        'Failed: ID, plate, sticker',
        '',
        '0',
      ],
    ]);
    expect(text(html)).toContain('4 patrol checks; showing 1–4.');
  });

  it.each([
    ['is_validation=0', ['9002', '9004']],
    ['license_plate=false', ['9003', '9004']],
    ['sticker_validation=1', ['9003', '9001']],
    ['tpatroller_id=1', ['9003', '9001']],
    ['rider_id=9007199254740993', ['9004']],
    ['3pl=Swift%20%26%20Co', ['9001', '9004']],
    ['3pl=swift%20%26%20co', []],
    // Both bounds are whole days: 00:00:00 on the first and 23:59:59 on the last are in.
    ['check_date_from=2024-05-01&check_date_to=2024-05-31', ['9002', '9001']],
    ['check_date_to=2024-04-30', ['9004']],
    ['is_validation=1&license_plate=1&sticker_validation=1', ['9001']],
  ])('applies %s', async (query, ids) => {
    const html = await page(`/admin/checks?${query}`);
    expect(column(html, 0)).toEqual(ids);
    if (ids.length)
      expect(text(html)).toContain(
        `${ids.length} patrol check${ids.length === 1 ? '' : 's'} match${ids.length === 1 ? 'es' : ''} these filters`,
      );
  });

  it('says plainly when nothing matches, and offers to clear the filters', async () => {
    const html = await page('/admin/checks?rider_id=107');
    expect(text(html)).toContain('No patrol checks match these filters.');
    expect(html).toContain('<a href="/admin/checks">Clear the filters</a>');
    expect(html).not.toContain('<tbody>');
  });

  it('keeps the filter values in the form, and the sort and page size as hidden fields', async () => {
    const html = await page('/admin/checks?3pl=Swift%20%26%20Co&is_validation=0&sort=rider_id&dir=desc&per_page=50');
    expect(html).toMatch(/<select id="f-3pl" name="3pl">[^]*?<option value="Swift &amp; Co" selected>Swift &amp; Co<\/option>/);
    expect(html).toMatch(/<option value="0" selected>Failed<\/option>/);
    expect(html).toContain('<input type="hidden" name="sort" value="rider_id">');
    expect(html).toContain('<input type="hidden" name="dir" value="desc">');
    expect(html).toContain('<input type="hidden" name="per_page" value="50">');
  });

  it('sorts by an allowed column either way, and its header links keep the filters', async () => {
    expect(column(await page('/admin/checks?sort=rider_id&dir=asc'), 0)).toEqual(['9001', '9002', '9003', '9004']);
    expect(column(await page('/admin/checks?sort=id&dir=asc'), 0)).toEqual(['9001', '9002', '9003', '9004']);
    expect(column(await page('/admin/checks?sort=3pl&dir=asc'), 4)).toEqual(['100%_Express', 'Swift & Co', 'Swift & Co', 'توصيل سريع']);
    const html = await page('/admin/checks?is_validation=0&sort=rider_id&dir=asc&page=1');
    expect(html).toContain('aria-sort="ascending"><a href="/admin/checks?is_validation=0&amp;sort=rider_id&amp;dir=desc">Rider ID');
    expect(html).toContain('<a href="/admin/checks?is_validation=0&amp;sort=checked_at&amp;dir=desc">Checked at');
  });

  it('offers the 3PLs as a select, and patrollers and riders by name', async () => {
    const html = await page('/admin/checks');
    // Raw HTML on purpose: the options must arrive escaped.
    const select = /<select id="f-3pl" name="3pl">([^]*?)<\/select>/.exec(html)![1];
    expect([...select.matchAll(/<option value="([^"]*)">([^<]*)<\/option>/g)].map(([, value, label]) => [value, label])).toEqual([
      ['', 'Any'],
      ['100%-Express', '100%-Express'],
      ['100%_Express', '100%_Express'],
      ['O&#39;Neil &#34;Quick&#34; Riders', 'O&#39;Neil &#34;Quick&#34; Riders'],
      ['Swift &amp; Co', 'Swift &amp; Co'],
      ['swift &amp; co', 'swift &amp; co'],
      ['توصيل سريع', 'توصيل سريع'],
    ]);
    // Patrollers are few: all listed by name, the ID as the value the URL keeps.
    expect(html).toContain('<label for="f-tpatroller_id">Patroller</label>');
    expect(optionsOf(html, 'datalist#patroller-suggestions')).toEqual([
      ['9007199254740995', 'Patroller Big'],
      ['1', 'Patroller One'],
      ['2', 'Patroller Two'],
    ]);
    // Riders are many: suggested as one types, from the lookup, by the site's own script.
    expect(html).toMatch(
      /<input id="f-rider_id" name="rider_id" type="text" value="" inputmode="numeric" list="rider-suggestions" data-lookup="\/admin\/lookup\/riders" placeholder="Name or ID"/,
    );
    expect(html).toContain('<script src="/admin/assets/lookup.js" defer></script>');
  });

  it('links the CSV download with the filters and sort, without the page', async () => {
    const html = await page('/admin/checks?is_validation=0&sort=id&dir=asc&page=1&per_page=50');
    expect(html).toContain('href="/admin/checks.csv?is_validation=0&amp;sort=id&amp;dir=asc">Download all 2 as CSV');
  });

  it('says so when the page is past the end, with a link to the last page', async () => {
    const html = await page('/admin/checks?is_validation=0&page=5');
    expect(text(html)).toContain('Page 5 is past the end: there is 1 page.');
    expect(html).toContain('<a href="/admin/checks?is_validation=0">Go to the last page</a>');
  });
});

describe('equipment lists', () => {
  it('lists assignments with the filters of /v2/assign-list plus held now or returned', async () => {
    expect(column(await page('/admin/equipment/assignments?active=1&sort=assigned_at&dir=asc'), 2)).toEqual([
      'محمد علي',
      'Ahmed Khan',
      'Sara Ali',
      'Ahmed Khan',
      'Lee Park',
      'Lee Park',
      'Nadia Noor',
      'Big Id Rider',
    ]);
    const returned = rows(await page('/admin/equipment/assignments?active=0&rider_id=101'));
    expect(returned).toEqual([
      ['2024-05-01 00:00:00', '101', 'Ahmed Khan', 'Swift & Co', 'Helmet / M', 'Manual', 'Assigned', 'Store Keeper', '2024-06-10 09:30:00'],
    ]);
    expect(column(await page('/admin/equipment/assignments?assign_type=1&product_id=10&sort=assigned_at&dir=asc'), 4)).toEqual([
      'Helmet / M',
      'Helmet / L',
      'Helmet / M',
      'Helmet / L',
      'Helmet / L',
    ]);
    expect(
      column(await page('/admin/equipment/assignments?assign_date_from=2024-05-01&assign_date_to=2024-05-01&sort=assigned_at&dir=asc'), 0),
    ).toEqual(['2024-05-01 00:00:00', '2024-05-01 23:59:59']);
  });

  it('lists riders with the equipment the filters keep (the /v2/rider-equipment-list view)', async () => {
    const all = rows(await page('/admin/equipment/riders'));
    expect(all.map((row) => row[0])).toEqual(['101', '102', '103', '104', '105', '106', '9007199254740993']);
    const returned = rows(await page('/admin/equipment/riders?active=0'));
    expect(returned.map((row) => [row[0], row[4], row[5]])).toEqual([
      ['101', '0', '1'],
      ['102', '0', '1'],
      ['103', '0', '1'],
      ['104', '0', '1'],
      ['9007199254740993', '0', '1'],
    ]);
    // What was returned is a count linked to the rider's returns, not a line per item; the page lists what is held now.
    expect(returned[0][6]).toBe('');
    const returnedHtml = await page('/admin/equipment/riders?active=0');
    expect(returnedHtml).toContain('href="/admin/equipment/returns?rider_id=101"');
    const csv = (await request(t.app).get('/admin/equipment/riders.csv?active=0').expect(200)).text;
    expect(csv).toContain('101,Ahmed Khan,Swift & Co,AE,0,1,Helmet / M (returned 2024-06-10)'); // the CSV keeps every item
    const held = rows(await page('/admin/equipment/riders?3pl_name=Swift%20%26%20Co&active=1'));
    expect(held.map((row) => [row[0], row[4], row[6]])).toEqual([
      ['101', '2', 'Delivery Bag / Large Box – held since 2024-05-01 Helmet / L – held since 2024-06-10'],
      ['9007199254740993', '1', 'Helmet / L – held since 2024-08-01'],
    ]);
  });

  it('lists returns and exchanges with their filters', async () => {
    expect(rows(await page('/admin/equipment/returns'))).toEqual([
      [
        '2024-05-31 23:59:59',
        '103',
        'Omar "O" Neil',
        'O\'Neil "Quick" Riders',
        'Delivery Bag / Large Box',
        '2024-05-15 12:00:00',
        'Good',
        'Store Keeper',
      ],
      ['2024-05-02 00:00:00', '102', 'Sara Ali', '100%_Express', 'Helmet / M', '2024-04-30 23:59:59', 'Damaged', 'Hub Manager'],
    ]);
    expect(column(await page('/admin/equipment/returns?return_condition=Damaged'), 1)).toEqual(['102']);
    expect(rows(await page('/admin/equipment/exchanges?replacement_type=Accident'))).toEqual([
      [
        '2024-08-01 00:00:00',
        '9007199254740993',
        'Big Id Rider',
        'Swift & Co',
        'Helmet / L',
        'Helmet / L',
        'تلف',
        'Accident',
        'Store Keeper',
      ],
    ]);
    expect(column(await page('/admin/equipment/exchanges?new_variation_id=12&sort=exchanged_at&dir=asc'), 1)).toEqual([
      '101',
      '9007199254740993',
    ]);
  });

  it('shows the equipment lists as tabs, the current one marked', async () => {
    const html = await page('/admin/equipment/returns');
    expect(html).toContain('<a href="/admin/equipment/returns" aria-current="page">Returns</a>');
    expect(html).toContain('<a href="/admin/equipment/assignments">Assignments</a>');
    const redirect = await request(t.app).get('/admin/equipment').expect(302);
    expect(redirect.headers.location).toBe('/admin/equipment/assignments');
  });
});
