import request from 'supertest';
import { FAR_ROWS, FAR_ROWS_UNKEYED } from '../src/admin/list-page';
import { testApp, type TestApp } from './support/app';

// "Go to a day" beside the pager (issue 43): a deep row of a list ordered by a date is reached by its
// day, at the cost of the first page, instead of by a page number read by offset.
let t: TestApp;
beforeAll(() => {
  t = testApp('demo');
});
afterAll(() => t.close());

/** The check dates of a page of /admin/checks, in the page's order (the Checked column). */
const days = (html: string) => [...html.matchAll(/data-label="Checked at"[^>]*>(?:<a [^>]*>)?(\d{4}-\d{2}-\d{2})/g)].map((m) => m[1]);

describe('Go to a day', () => {
  it('newest first: the page starts with the day asked for and goes back from it', async () => {
    const all = days((await request(t.app).get('/admin/checks?per_page=100').expect(200)).text);
    expect(all.length).toBeGreaterThan(10);
    const day = all[40];
    const res = await request(t.app).get(`/admin/checks?day=${day}`).expect(200);
    const shown = days(res.text);
    expect(shown[0]).toBe(day);
    expect(shown.every((d) => d <= day)).toBe(true);
    expect([...shown].sort().reverse()).toEqual(shown);
    expect(res.text).toContain(`, on or before ${day}</caption>`);
    expect(res.text).toContain(`data-date="Go to a day" value="${day}"`);
    // Its Next link goes on from its last row.
    expect(res.text).toMatch(/<a href="\/admin\/checks\?after=[A-Za-z0-9_-]+" rel="next">/);
  });

  it('oldest first: the rows from that day on', async () => {
    const oldest = days((await request(t.app).get('/admin/checks?dir=asc').expect(200)).text);
    const day = oldest[oldest.length - 1];
    const shown = days((await request(t.app).get(`/admin/checks?dir=asc&day=${day}`).expect(200)).text);
    expect(shown[0]).toBe(day);
    expect(shown.every((d) => d >= day)).toBe(true);
  });

  it('keeps the filters and the order in its form, and is offered only for an order by date', async () => {
    const html = (await request(t.app).get('/admin/checks?dir=asc&per_page=50').expect(200)).text;
    const form = html.slice(html.indexOf('<form class="go-to-day"'), html.indexOf('</form>', html.indexOf('<form class="go-to-day"')));
    expect(form).toContain('<input type="hidden" name="dir" value="asc">');
    expect(form).toContain('<input type="hidden" name="per_page" value="50">');
    expect(form).not.toContain('name="page"');
    expect((await request(t.app).get('/admin/checks?sort=3pl&dir=asc').expect(200)).text).not.toContain('go-to-day');
  });

  it('answers a day with another order, a page or a bad date with the reason beside the field, never a 500', async () => {
    const other = await request(t.app).get('/admin/checks?sort=3pl&day=2025-01-01');
    expect(other.status).toBe(400);
    expect(other.text).toContain('sort it by its date first');
    const both = await request(t.app).get('/admin/checks?page=3&day=2025-01-01');
    expect(both.status).toBe(400);
    expect(both.text).toContain('may not be given with a page');
    expect((await request(t.app).get('/admin/checks?day=2025-02-30')).status).toBe(400);
  });
});

describe('a page number far from the start of a list with an exact total', () => {
  it('is past its end, said at once without reading the rows before it', async () => {
    const res = await request(t.app)
      .get(`/admin/checks?page=${FAR_ROWS / 25 + 2}`)
      .expect(200);
    expect(res.text).toMatch(/Page [0-9,]+ is past the end: there are [0-9,]+ pages./);
    expect(res.text).not.toContain('too far to be counted');
  });

  it('is past the end of a rule list too, whose pages are read only 10,000 rows in (FAR_ROWS_UNKEYED)', async () => {
    const res = await request(t.app)
      .get(`/admin/attention/unchecked?per_page=100&page=${FAR_ROWS_UNKEYED / 100 + 2}`)
      .expect(200);
    expect(res.text).toMatch(/Page [0-9,]+ is past the end: there (are [0-9,]+ pages|is 1 page)\./);
  });
});

describe('the pager around a page not counted from the start', () => {
  it('links page 1 to the first page, not to Next, on a page reached by its day', async () => {
    const all = days((await request(t.app).get('/admin/checks?per_page=100').expect(200)).text);
    const html = (await request(t.app).get(`/admin/checks?day=${all[60]}`).expect(200)).text;
    expect(html).toMatch(/<a href="\/admin\/checks" aria-label="Page 1">1<\/a>/);
  });

  it('says there is nothing on or before a day earlier than every row, with the way back', async () => {
    const res = await request(t.app).get('/admin/checks?day=2000-01-01').expect(200);
    expect(res.text).toContain('No patrol checks on or before 2000-01-01. <a href="/admin/checks">Go to the first page</a>.');
    expect(res.text).not.toContain('past the end');
  });

  it('shows the last numbered page for Last when the total is exact: its rows, its number, its range', async () => {
    const last = (await request(t.app).get('/admin/checks?from_end=1').expect(200)).text;
    const total = Number(/<strong>([0-9,]+)<\/strong> patrol checks/.exec(last)![1].replace(/,/g, ''));
    const pages = Math.ceil(total / 25);
    const numbered = (await request(t.app).get(`/admin/checks?page=${pages}`).expect(200)).text;
    const rowsOf = (html: string) => days(html).length;
    expect(rowsOf(last)).toBe(total - (pages - 1) * 25);
    expect(rowsOf(last)).toBe(rowsOf(numbered));
    expect(last).toContain(`showing ${((pages - 1) * 25 + 1).toLocaleString('en-US')}–${total.toLocaleString('en-US')}.`);
    expect(last).toContain(`, page ${pages.toLocaleString('en-US')} of ${pages.toLocaleString('en-US')}</caption>`);
  });
});
