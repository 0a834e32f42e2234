import request from 'supertest';
import { testApp, type TestApp } from './support/app';
import { optionsOf, tableRows, textOf } from './support/html';

// The admin pages over the hand-written fixture (test/fixtures/fixture.sql): exact rows, edges of
// date ranges, 3PL names with &, %, quotes and Arabic, ids past 2^53.
let t: TestApp;
beforeAll(() => (t = testApp('fixture')));
afterAll(() => t.close());

const text = (html: string) => textOf(html);
/** The cells' text of the first table body on the page, row by row. */
const rows = (html: string) => tableRows(html);
const column = (html: string, index: number) => rows(html).map((row) => row[index]);
const page = async (path: string, status = 200) => {
  const res = await request(t.app).get(path);
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  return res.text;
};

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

describe('one patrol check', () => {
  it('shows the results, the fake-ID note with its images, answers with scores by category and reported items', async () => {
    const html = await page('/admin/checks/9002');
    expect(text(html)).toContain('ID card Failed');
    expect(text(html)).toContain('License plate Passed');
    expect(text(html)).toContain('ID photo does not match');
    expect(html).toContain('<a href="https://img.test/fake-1.jpg" rel="noopener noreferrer">Image 1</a>');
    expect(html).toContain('<a href="https://img.test/fake-2.jpg" rel="noopener noreferrer">Image 2</a>');
    expect(rows(html)).toEqual([['Is the helmet worn?', 'Equipment', 'No', '–', '-3']]);
    expect(text(html)).toContain('No items were reported.');

    const full = await page('/admin/checks/9001');
    expect(rows(full)).toEqual([
      ['Is the helmet worn?', 'Equipment', 'Yes', '–', '2'],
      ['Which items are damaged?', 'Equipment', 'Helmet, Bag', '–', '-2'],
      ['Photo of the bike', 'Vehicle', 'No answer', 'Image', '–'],
    ]);
    expect(text(full)).toContain('Equipment score 0');
    expect(text(full)).toContain('No note was recorded.');
    const items = /Reported items[\s\S]*<tbody>([\s\S]*?)<\/tbody>/.exec(full)![1];
    expect(text(items)).toContain('Helmet / M #10/11 Helmets Good 01-05-2024 28-10-2024');
    expect(text(items)).toContain('Delivery Bag / Large Box #20/21 Bags Damaged 01-05-2024 01-05-2025');
  });

  it('answers 404 for an unknown or malformed id', async () => {
    expect(text(await page('/admin/checks/9999', 404))).toContain('There is no patrol check with ID 9999.');
    expect(text(await page('/admin/checks/abc', 404))).toContain('There is no patrol check with ID abc.');
  });
});

describe('one rider', () => {
  it('shows the equipment held now and a timeline of assignments, returns, exchanges and checks', async () => {
    const html = await page('/admin/riders/101');
    expect(text(html)).toContain('Ahmed Khan');
    expect(rows(html).map((row) => row[0])).toEqual(['Helmet / L', 'Delivery Bag / Large Box']);
    const timeline = [...html.matchAll(/<time datetime="[^"]+">([^<]+)<\/time>\s*<span class="kind">([^<]+)<\/span>/g)].map(
      ([, at, kind]) => `${at} ${kind}`,
    );
    expect(timeline).toEqual([
      '2024-06-10 09:30:00 Assigned',
      '2024-06-10 09:30:00 Exchanged',
      '2024-05-01 23:59:59 Assigned',
      '2024-05-01 00:00:00 Checked',
      '2024-05-01 00:00:00 Assigned',
    ]);
    expect(text(html)).toContain('Exchanged Helmet / M for Helmet / L');
    expect(html).toContain('<a href="/admin/checks/9001">Patrol check 9001</a>');
    expect(html).toContain('href="/admin/checks?rider_id=101"');
    // The breadcrumb leads to the riders' list, not to an empty search form.
    expect(html).toContain('<nav class="breadcrumbs" aria-label="Breadcrumbs"><a href="/admin/equipment/riders">Riders</a>');
  });

  it('keeps ids past 2^53 exact, and says so when a rider holds nothing', async () => {
    expect(text(await page('/admin/riders/9007199254740993'))).toContain('Rider ID 9007199254740993');
    const none = await page('/admin/riders/107');
    expect(text(none)).toContain('This rider holds no equipment now.');
    expect(text(none)).toContain('Nothing has happened to this rider yet.');
    await page('/admin/riders/108', 404);
  });
});

describe('rider search', () => {
  it('goes straight to the rider for an id', async () => {
    const res = await request(t.app).get('/admin/search?q=%20101%20').expect(303);
    expect(res.headers.location).toBe('/admin/riders/101');
    expect((await request(t.app).get('/admin/search?q=9007199254740993').expect(303)).headers.location).toBe(
      '/admin/riders/9007199254740993',
    );
  });

  it('opens the rider when one name matches, in any letter case or script, with runs of spaces read as one', async () => {
    for (const [q, id] of [
      ['ALI', '102'],
      ['%D8%B9%D9%84%D9%8A', '104'],
      ['%20SARA%20%20%20ali%20', '102'],
      ['nadia', '106'],
    ])
      expect([q, (await request(t.app).get(`/admin/search?q=${q}`).expect(303)).headers.location]).toEqual([q, `/admin/riders/${id}`]);
  });

  it('lists several matches by name with what each holds now; % and _ taken literally', async () => {
    const found = await page('/admin/search?q=AR');
    const names = ['Lee Park', 'No Gear Yet', 'Omar "O" Neil', 'Sara Ali'];
    expect(column(found, 1)).toEqual(names);
    // Held now: the kept counts, as the rider's page and the lists read them.
    const held = Object.fromEntries(
      (await t.pool.query(`SELECT name, active_items FROM riders WHERE id IN (102, 103, 105, 107)`)).rows.map((r) => [
        r.name,
        r.active_items,
      ]),
    );
    const says = (n: number) => (n === 0 ? 'Nothing' : n === 1 ? '1 item' : `${n} items`);
    expect(column(found, 4)).toEqual(names.map((name) => says(held[name])));
    expect(column(found, 4)).toContain('Nothing');
    expect(text(found)).toContain('4 riders match “AR”');
    expect(text(await page('/admin/search?q=%25'))).toContain('No rider matches “%”.');
    expect(text(await page('/admin/search?q=999'))).toContain('No rider matches “999”.');
    expect(text(await page('/admin/search'))).not.toContain('match');
  });

  it('has the search box on every page', async () => {
    for (const path of ['/admin', '/admin/checks', '/admin/checks/9001', '/admin/riders/101', '/admin/questionnaire', '/admin/nope']) {
      const res = await request(t.app).get(path);
      expect(res.text).toContain('<form class="site-search" role="search" action="/admin/search" method="get">');
    }
  });
});

describe('questionnaire', () => {
  it("shows a country's questions with answers, scores, jump and skip, Arabic right to left", async () => {
    const html = await page('/admin/questionnaire?country_id=1');
    expect(html.match(/<section class="question" id="q-(\d+)"/g)).toEqual([
      '<section class="question" id="q-301"',
      '<section class="question" id="q-302"',
      '<section class="question" id="q-303"',
    ]);
    expect(html).toContain('<span dir="rtl" lang="ar">نعم</span>');
    expect(text(html)).toContain('No لا -3 #303 #302'); // "No" jumps to 303 and skips 302
    expect(html).toContain('<a href="#q-303">#303</a>');
    expect(text(html)).toContain('No choices: the patroller answers freely with a photo.');
    // Skips may name questions of no questionnaire; they stay plain text.
    expect(text(await page('/admin/questionnaire?country_id=2'))).toContain(
      '#305 (not in this questionnaire), #306 (not in this questionnaire)',
    );
  });

  it('lists the countries to choose from', async () => {
    const html = await page('/admin/questionnaire');
    expect(html).toContain('<option value="">Choose a country</option>');
    expect(text(html)).toContain('Saudi Arabia SA · 1 question');
    expect(text(html)).toContain('United Arab Emirates AE · 3 questions');
  });
});

describe('home', () => {
  it('shows checks in the last 7 and 30 days with their pass rate by 3PL, on whole days up to as_of', async () => {
    // 7 days to 2024-06-01: 9002 (05-31 23:59:59) and 9003 (06-01 00:00:00); neither passes all three.
    const html = await page('/admin?as_of=2024-06-01');
    expect(text(html)).toContain('2 checks in the last 7 days 0% passed');
    const rates = rows(html.slice(html.indexOf('Pass rate by 3PL')));
    expect(rates.map((row) => row.join(' | '))).toEqual([
      '1 0% · 1 failed | 1 0% · 1 failed | 0%',
      '1 0% · 1 failed | 1 0% · 1 failed | 0%',
    ]);
    expect(text(html)).toContain(
      '3PL 7 days 30 days 30-day pass rate 100%_Express 1 0% · 1 failed 1 0% · 1 failed 0% توصيل سريع 1 0% · 1 failed 1 0% · 1 failed 0%',
    );
    // The 30 days to 2024-05-30 start on 05-01, so 9001 at 00:00:00 that day is in, and passes.
    expect(text(await page('/admin?as_of=2024-05-30'))).toContain('1 check in the last 30 days 100% passed');
  });

  it('shows riders holding equipment, items by product and exchanges by replacement type', async () => {
    const html = text(await page('/admin?as_of=2024-06-01'));
    expect(html).toContain('6 riders holding equipment of 8 riders');
    expect(html).toContain('8 items held now across 2 products');
    expect(html).toMatch(/Items held now, by product Product Items held Delivery Bag 4 Helmet 4/);
    // Up to as_of only: 7001 (2024-06-10) and 7003 (2024-08-01) come later.
    expect(html).toContain('Replacement Exchanges Last 30 days Lost 1 0');
    expect(text(await page('/admin?as_of=2024-08-01'))).toContain('Replacement Exchanges Last 30 days Accident 1 1 Exchange 1 0 Lost 1 0');
  });

  it('draws its charts as inline SVG, and points at the newest data when the windows are empty', async () => {
    const html = await page('/admin');
    expect(html).toMatch(/<svg viewBox="0 0 300 100" preserveAspectRatio="none" role="group" aria-labelledby="days-caption"/);
    expect(html).toContain('<a href="/admin?as_of=2024-06-01">See the figures as of 2024-06-01</a>');
  });
});

describe('admin surface', () => {
  it('marks pages as not to be stored, and serves its CSS locally', async () => {
    const res = await request(t.app).get('/admin/checks');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('<link rel="stylesheet" href="/admin/assets/admin.css">');
    const css = await request(t.app).get('/admin/assets/admin.css').expect(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
  });
});
