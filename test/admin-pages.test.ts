import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { links } from '../src/html/links';
import { ADMIN_STYLESHEETS } from '../src/http/admin-stylesheets';
import { projectRoot } from '../src/paths';
import { testApp, type TestApp } from './support/app';
import { parseHtml } from './support/html';
import { column, htmlPage, rows, text } from './support/admin-pages';

// The admin pages over the hand-written fixture (test/fixtures/fixture.sql): exact rows, edges of
// date ranges, 3PL names with &, %, quotes and Arabic, ids past 2^53. One check, one rider, the rider
// search, the questionnaire, the home page and what every page carries; the lists of checks and of
// equipment: test/admin-pages-lists.test.ts.
let t: TestApp;
beforeAll(() => (t = testApp('fixture')));
afterAll(() => t.close());

const page = (path: string, status?: number) => htmlPage(t.app, path, status);

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
    // Every stylesheet, in the cascade's order (src/http/admin-stylesheets.ts), and nothing else.
    const sheets = parseHtml(res.text)
      .querySelectorAll('link[rel="stylesheet"]')
      .map((link) => link.getAttribute('href'));
    expect(sheets).toEqual(links.stylesheets);
    expect(links.stylesheets[0]).toBe('/admin/assets/css/base.css');
    for (const href of links.stylesheets) {
      const css = await request(t.app).get(href).expect(200);
      expect(css.headers['content-type']).toMatch(/^text\/css/);
    }
  });

  it('links every sheet of public/admin/css, each under 400 lines', () => {
    const dir = path.join(projectRoot, 'public/admin/css');
    expect(fs.readdirSync(dir).sort()).toEqual([...ADMIN_STYLESHEETS].sort());
    const long = ADMIN_STYLESHEETS.filter((file) => fs.readFileSync(path.join(dir, file), 'utf8').split('\n').length - 1 > 400);
    expect(long).toEqual([]);
  });
});
