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
    expect(res.text).toContain(`, from ${day}</caption>`);
    expect(res.text).toMatch(/<input type="date" id="go-to-day" name="day" value="\d{4}-\d{2}-\d{2}" required>/);
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
