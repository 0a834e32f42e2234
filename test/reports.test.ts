import express from 'express';
import request from 'supertest';
import { createSupervisor } from '../src/auth/supervisors';
import { requestId } from '../src/http/request-id';
import { createReportsRouter } from '../src/reports/router';
import { testApp, testAppWithAuth, type TestApp } from './support/app';
import { csrfToken, fieldError, one, parseHtml, tableRows, textOf, type Page } from './support/html';

// Printable rider reports on the hand-written fixture: every expected value is written out below.
let t: TestApp;
beforeAll(() => {
  t = testApp('fixture');
});
afterAll(() => t.close());

/** One rider's <article> of a report document. */
const article = (html: string, riderId: string): Page => one(html, `article.report[data-rider="${riderId}"]`);

/** A section's table as rows of cell texts, or "None." when it says there is nothing. */
function rows(report: Page, section: string): string[][] | string {
  const body = one(report, `section.${section}`);
  const empty = body.querySelector('p.empty');
  return empty ? textOf(empty) : tableRows(body);
}

const facts = (report: Page) => Object.fromEntries(report.querySelectorAll('dt').map((dt) => [textOf(dt), textOf(dt.nextElementSibling!)]));
const totals = (report: Page) => textOf(one(report, 'p.totals'));
const riderIds = (html: string) =>
  parseHtml(html)
    .querySelectorAll('article.report')
    .map((a) => a.getAttribute('data-rider'));

describe('the report of one rider', () => {
  it('prints the header, equipment held now, the history, the checks, the totals and signature lines', async () => {
    const res = await request(t.app).get('/admin/riders/101/report').expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const a = article(res.text, '101');
    expect(facts(a)).toEqual({
      'Rider ID': '101',
      Name: 'Ahmed Khan',
      '3PL': 'Swift & Co',
      Country: 'United Arab Emirates (AE)',
      Printed: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} by \(sign-in is off\)$/),
      'Stands at': 'the time of printing',
    });
    expect(a.innerHTML).toContain('<dd dir="auto">Swift &amp; Co</dd>');
    expect(a.innerHTML).toContain('<h2>Equipment held now</h2>');
    expect(rows(a, 'held')).toEqual([
      ['Delivery Bag', 'Large Box', '2024-05-01 23:59:59', 'Hub Manager', 'Physical', 'Assigned', 'Yes, since 2025-05-01'],
      ['Helmet', 'L', '2024-06-10 09:30:00', 'Store Keeper', 'Physical', 'From an exchange', 'Yes, since 2024-12-07'],
    ]);
    expect(rows(a, 'assignments')).toEqual([
      ['2024-05-01 00:00:00', 'Helmet', 'M', 'Manual', 'Store Keeper', '2024-06-10 09:30:00'],
      ['2024-05-01 23:59:59', 'Delivery Bag', 'Large Box', 'Physical', 'Hub Manager', 'Still held'],
      ['2024-06-10 09:30:00', 'Helmet', 'L', 'Physical', 'Store Keeper', 'Still held'],
    ]);
    expect(rows(a, 'returns')).toBe('None.');
    expect(rows(a, 'exchanges')).toEqual([['2024-06-10 09:30:00', 'Helmet / M → Helmet / L', 'Exchange', 'Size change', 'Store Keeper']]);
    expect(rows(a, 'checks')).toEqual([['9001', '2024-05-01 00:00:00', 'Patroller One', 'Pass', 'Pass', 'Pass', '0']]);
    expect(totals(a)).toBe(
      'Totals: 2 items held · 3 assignments · 0 returns · 1 exchange · 1 patrol check (1 passed all three validations)',
    );
    expect(a.innerHTML).toMatch(
      /<section class="signatures">[\s\S]*Rider: <span dir="auto">Ahmed Khan<\/span> \(101\)[\s\S]*Supervisor: name and signature/,
    );
  });

  it('gives every column header its scope, for screen readers and validators', async () => {
    const html = (await request(t.app).get('/admin/riders/101/report').expect(200)).text;
    expect(html.match(/<th[ >]/g)!.length).toBeGreaterThan(20);
    expect(html.match(/<th(?![^>]*\bscope=)[ >]/g)).toBeNull();
  });

  it('prints returns with their condition, and failed validations and a negative score', async () => {
    const a = article((await request(t.app).get('/admin/riders/102/report').expect(200)).text, '102');
    expect(rows(a, 'returns')).toEqual([['2024-05-02 00:00:00', 'Helmet', 'M', 'Damaged', 'Hub Manager']]);
    expect(rows(a, 'checks')).toEqual([['9002', '2024-05-31 23:59:59', 'Patroller Two', 'Fail', 'Pass', 'Fail', '-3']]);
    expect(totals(a)).toBe(
      'Totals: 1 item held · 2 assignments · 1 return · 0 exchanges · 1 patrol check (0 passed all three validations)',
    );
  });

  it('as_of the day before a return shows the item held, and nothing that came after', async () => {
    const a = article((await request(t.app).get('/admin/riders/102/report?as_of=2024-05-01').expect(200)).text, '102');
    expect(a.innerHTML).toContain('<h1>Equipment report as of 2024-05-01</h1>');
    expect(facts(a)['Stands at']).toBe('the end of 2024-05-01');
    expect(a.innerHTML).toContain('<h2>Equipment held at the end of 2024-05-01</h2>');
    expect(rows(a, 'held')).toEqual([['Helmet', 'M', '2024-04-30 23:59:59', 'Store Keeper', 'Manual', 'Assigned', 'From 2024-10-27']]);
    expect(rows(a, 'assignments')).toEqual([['2024-04-30 23:59:59', 'Helmet', 'M', 'Manual', 'Store Keeper', 'Still held']]);
    expect(rows(a, 'returns')).toBe('None.');
    expect(rows(a, 'checks')).toBe('None.');
    expect(totals(a)).toBe(
      'Totals: 1 item held · 1 assignment · 0 returns · 0 exchanges · 0 patrol checks (0 passed all three validations)',
    );
  });

  it('as_of the day of the return (at 00:00:00) no longer shows it held, and shows the return', async () => {
    const a = article((await request(t.app).get('/admin/riders/102/report?as_of=2024-05-02').expect(200)).text, '102');
    expect(rows(a, 'held')).toEqual([
      ['Delivery Bag', 'Large Box', '2024-05-02 00:00:00', 'Hub Manager', 'Manual', 'Assigned', 'From 2025-05-02'],
    ]);
    expect(rows(a, 'assignments')).toEqual([
      ['2024-04-30 23:59:59', 'Helmet', 'M', 'Manual', 'Store Keeper', '2024-05-02 00:00:00'],
      ['2024-05-02 00:00:00', 'Delivery Bag', 'Large Box', 'Manual', 'Hub Manager', 'Still held'],
    ]);
    expect(rows(a, 'returns')).toEqual([['2024-05-02 00:00:00', 'Helmet', 'M', 'Damaged', 'Hub Manager']]);
    expect(rows(a, 'checks')).toBe('None.');
  });

  it('prints a rider with no equipment, and escapes names', async () => {
    const none = article((await request(t.app).get('/admin/riders/107/report').expect(200)).text, '107');
    expect(rows(none, 'held')).toBe('None.');
    expect(totals(none)).toBe(
      'Totals: 0 items held · 0 assignments · 0 returns · 0 exchanges · 0 patrol checks (0 passed all three validations)',
    );
    const html = (await request(t.app).get('/admin/riders/103/report').expect(200)).text;
    expect(html).toContain('<dd dir="auto">Omar &#34;O&#34; Neil</dd>');
    expect(html).toContain('<dd dir="auto">O&#39;Neil &#34;Quick&#34; Riders</dd>');
    expect(html).not.toContain('"O"');
  });

  it('keeps ids past 2^53 exact', async () => {
    const a = article((await request(t.app).get('/admin/riders/9007199254740993/report').expect(200)).text, '9007199254740993');
    expect(facts(a)['Rider ID']).toBe('9007199254740993');
    expect(rows(a, 'exchanges')).toEqual([['2024-08-01 00:00:00', 'Helmet / L → Helmet / L', 'Accident', 'تلف', 'Store Keeper']]);
  });

  it('answers 404 for an unknown rider or a malformed id, and 400 for a bad as_of or an unknown parameter', async () => {
    expect((await request(t.app).get('/admin/riders/999/report').expect(404)).text).toContain('There is no rider with ID 999.');
    await request(t.app).get('/admin/riders/abc/report').expect(404);
    expect(fieldError((await request(t.app).get('/admin/riders/101/report?as_of=2024-02-30').expect(400)).text, 'as_of')).toBe(
      '“2024-02-30” must be a real calendar day written YYYY-MM-DD',
    );
    await request(t.app).get('/admin/riders/101/report?paper=A4').expect(400); // paper is for the PDF only
  });

  it('draws a bad address again as the report’s own form, in its words, with the way back to the rider', async () => {
    const res = await request(t.app).get('/admin/riders/101/report?as_of=2024-02-30&paper=A4').expect(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const page = parseHtml(res.text);
    expect(textOf(one(page, 'h1'))).toBe('Rider 101: check the report’s fields');
    const form = one(page, 'form.filters');
    expect(form.getAttribute('action')).toBe('/admin/riders/101/report');
    expect(one(form, 'label[for="f-as_of"]').text).toBe('As of');
    expect(one(form, '#f-as_of').getAttribute('value')).toBe('2024-02-30');
    expect(fieldError(page, 'as_of')).toBe('“2024-02-30” must be a real calendar day written YYYY-MM-DD');
    // Both problems at once, the one with no field of the form named by what it is.
    expect(textOf(one(page, '.error-summary'))).toContain('paper is not a filter of this page');
    const back = page.querySelectorAll('main a').find((a) => textOf(a) === 'Back to the rider');
    expect(back?.getAttribute('href')).toBe('/admin/riders/101');
    expect(res.text).not.toContain('Back to the overview');
    // The PDF's address the same way, its paper a field of its own.
    const pdf = parseHtml((await request(t.app).get('/admin/riders/101/report.pdf?paper=A3').expect(400)).text);
    expect(one(pdf, 'form.filters').getAttribute('action')).toBe('/admin/riders/101/report.pdf');
    expect(fieldError(pdf, 'paper')).toBe('“A3” must be one of: A4, Letter');
  });

  it('offers Print (shown by its script) and the PDF downloads when Chromium is there, and no PDF without it', async () => {
    const html = (await request(t.app).get('/admin/riders/102/report?as_of=2024-05-01').expect(200)).text;
    expect(html).toContain('<button type="button" class="print-button" hidden>Print</button>');
    expect(html).toContain('<script src="/admin/reports/assets/print.js" defer></script>');
    expect(html).toContain('<a class="pdf-link" href="/admin/riders/102/report.pdf?as_of=2024-05-01&amp;paper=A4" download>PDF (A4)</a>');
    expect(html).toContain('href="/admin/riders/102/report.pdf?as_of=2024-05-01&amp;paper=Letter"');
    await request(t.app).get('/admin/reports/assets/report.css').expect(200).expect('content-type', /css/);

    const app = express()
      .use(requestId)
      .use('/admin', createReportsRouter({ pool: t.pool, chromiumPath: null, log: () => undefined }));
    const without = (await request(app).get('/admin/riders/102/report').expect(200)).text;
    expect(without).not.toContain('pdf-link');
    expect((await request(app).get('/admin/riders/102/report.pdf?paper=A4').expect(404)).text).toContain('PDF downloads are not enabled');
  });
});

describe('batch reports', () => {
  it('prints every rider of a 3PL, one article each, by id, including one without equipment', async () => {
    const html = (await request(t.app).get('/admin/reports?3pl_name=Swift%20%26%20Co').expect(200)).text;
    expect(riderIds(html)).toEqual(['101', '107', '9007199254740993']);
    expect(html).toContain('3 riders, one per page');
    expect(html).toContain('<a href="/admin/equipment/riders?3pl_name=Swift+%26+Co">Back to the riders list</a>');
    expect(rows(article(html, '101'), 'held')).toHaveLength(2);
  });

  it('with active=1 prints only riders holding equipment now', async () => {
    const html = (await request(t.app).get('/admin/reports?active=1').expect(200)).text;
    expect(riderIds(html)).toEqual(['101', '102', '104', '105', '106', '9007199254740993']);
  });

  it('prints more riders than one batch holds batch after batch, each saying which riders it holds and linking the next', async () => {
    const app = express()
      .use(requestId)
      .use('/admin', createReportsRouter({ pool: t.pool, batchCap: 3, log: () => undefined }));
    const first = (await request(app).get('/admin/reports').expect(200)).text;
    expect(riderIds(first)).toEqual(['101', '102', '103']);
    expect(textOf(one(first, 'p.batch'))).toBe(
      'This batch: riders 101 to 103 by rider ID, 3 at most per batch. More riders match these filters: next batch. ' +
        'To print fewer, narrow the filters: one 3PL, or only riders holding equipment now.',
    );
    expect(first).toContain('<title>Equipment reports: 3 riders, IDs 101 to 103 · Rider equipment</title>');

    // Following "next batch" prints every rider once, in order, and the last batch says it is the last.
    const seen = [...riderIds(first)];
    let next = one(first, 'a[rel="next"]').getAttribute('href');
    expect(next).toBe('/admin/reports?after=103');
    let last = first;
    while (next) {
      last = (await request(app).get(next).expect(200)).text;
      seen.push(...riderIds(last));
      next = parseHtml(last).querySelector('a[rel="next"]')?.getAttribute('href');
    }
    expect(seen).toEqual(['101', '102', '103', '104', '105', '106', '107', '9007199254740993']);
    expect(textOf(one(last, 'p.batch'))).toContain(
      'riders 107 to 9007199254740993 by rider ID, 3 at most per batch. The last riders these filters match. First batch.',
    );
    expect(one(last, 'p.batch a').getAttribute('href')).toBe('/admin/reports');

    // The filters go along to the next batch.
    const swift = (await request(app).get('/admin/reports?3pl_name=Swift%20%26%20Co&active=1').expect(200)).text;
    expect(riderIds(swift)).toEqual(['101', '9007199254740993']);
    expect(parseHtml(swift).querySelector('p.batch')).toBeNull();
    const afterOne = (await request(app).get('/admin/reports?3pl_name=Swift%20%26%20Co&after=101').expect(200)).text;
    expect(riderIds(afterOne)).toEqual(['107', '9007199254740993']);
    expect(one(afterOne, 'p.batch a').getAttribute('href')).toBe('/admin/reports?3pl_name=Swift+%26+Co');
  });

  it('answers 404 past the last rider, and 400 for an after that is not a rider ID', async () => {
    expect((await request(t.app).get('/admin/reports?after=9007199254740993').expect(404)).text).toContain(
      'No rider after ID 9007199254740993 matches these filters.',
    );
    expect((await request(t.app).get('/admin/reports?after=abc').expect(400)).text).toContain('after');
  });

  it('answers 404 when no rider matches, and 400 for a bad filter', async () => {
    // An unknown 3PL is named as such, with the way back to the riders' list and its filters.
    const unknown = (await request(t.app).get('/admin/reports?3pl_name=Nobody&active=1').expect(404)).text;
    expect(unknown).toContain('There is no 3PL named “Nobody”');
    expect(unknown).toContain('<a href="/admin/equipment/riders?3pl_name=Nobody&amp;active=1">Back to the riders list</a>');
    // A rider of another 3PL, or not holding anything now, is there: it does not match the filters.
    const other = (await request(t.app).get('/admin/reports?3pl_name=Swift%20%26%20Co&rider_id=102').expect(404)).text;
    expect(other).toContain('No rider matches these filters.');
    expect(other).not.toContain('There is no rider');
    expect((await request(t.app).get('/admin/reports?rider_id=999').expect(404)).text).toContain('There is no rider with ID 999.');
    const bad = parseHtml((await request(t.app).get('/admin/reports?active=maybe&3pl_name=Swift%20%26%20Co').expect(400)).text);
    expect(fieldError(bad, 'active')).toBe('“maybe” must be Yes (1) or No (0)');
    const back = bad.querySelectorAll('main a').find((a) => textOf(a) === 'Back to the riders list');
    expect(back?.getAttribute('href')).toBe('/admin/equipment/riders?active=maybe&3pl_name=Swift+%26+Co');
  });
});

describe('reports under sign-in', () => {
  let s: TestApp;
  const password = 'correct horse battery';
  const username = `reports-swift-${process.env.TEST_RUN_ID}`;
  beforeAll(async () => {
    s = await testAppWithAuth('fixture', { SIGN_IN_FAILURES_PER_15_MINUTES: '1000' });
    await createSupervisor(s.owner, { username, password, company: 'Swift & Co' });
  });
  afterAll(() => s.close());

  async function signIn() {
    const agent = request.agent(s.app);
    const form = await agent.get('/admin/sign-in').expect(200);
    const csrf = csrfToken(form.text);
    await agent.post('/admin/sign-in').type('form').send({ _csrf: csrf, username, password, next: '/admin' }).expect(303);
    return agent;
  }

  it('sends a visitor without a session to the sign-in form', async () => {
    const res = await request(s.app).get('/admin/riders/101/report').expect(303);
    expect(res.headers.location).toBe('/admin/sign-in?next=%2Fadmin%2Friders%2F101%2Freport');
  });

  it('prints who printed, and treats another 3PL’s rider as not found, in single and batch reports', async () => {
    const agent = await signIn();
    const own = (await agent.get('/admin/riders/101/report').expect(200)).text;
    expect(facts(article(own, '101')).Printed).toMatch(new RegExp(` by ${username}$`));
    expect((await agent.get('/admin/riders/102/report').expect(404)).text).toContain('There is no rider with ID 102.');
    await agent.get('/admin/riders/102/report?as_of=2024-05-01').expect(404);
    await agent.get('/admin/riders/102/report.pdf?paper=A4').expect(404);
    await agent.get('/admin/reports?rider_id=102').expect(404);
    await agent.get('/admin/reports?3pl_name=100%25_Express').expect(404);
    expect(riderIds((await agent.get('/admin/reports').expect(200)).text)).toEqual(['101', '107', '9007199254740993']);
  });
});

describe('links to the reports from the admin pages', () => {
  it("the rider page links to the rider's report, and the riders list to a batch of its riders", async () => {
    const rider = await request(t.app).get('/admin/riders/101').expect(200);
    expect(rider.text).toContain('href="/admin/riders/101/report"');
    const list = await request(t.app).get('/admin/equipment/riders?3pl_name=Swift+%26+Co&active=1').expect(200);
    const link = /href="(\/admin\/reports\?[^"]*)">Print their reports/.exec(list.text);
    expect(link).not.toBeNull();
    const batch = await request(t.app).get(link![1].replace(/&amp;/g, '&')).expect(200);
    expect(batch.text).toContain('Ahmed Khan');
    expect(batch.text).not.toContain('Sara Ali');
  });
});
