import express from 'express';
import request from 'supertest';
import { datePresets, dayIn } from '../src/admin/date-presets';
import { createAdminRouter } from '../src/admin/router';
import { requestId } from '../src/http/request-id';
import { testApp, type TestApp } from './support/app';
import { one, parseHtml, tableRows, textOf, type Page } from './support/html';

// Under each date range of the list forms: "Today", "Last 7 days", "This month", "Last month", "This year" as plain links,
// from today in the service's time zone, keeping the other filters and the list's settings.
let t: TestApp;
let app: express.Express;
beforeAll(() => {
  t = testApp('fixture');
  app = express()
    .use(requestId)
    .use('/admin', createAdminRouter({ pool: t.pool, log: () => undefined, today: () => '2024-06-15' }));
});
afterAll(() => t.close());

/** The preset links beside a field, as [text, href]. */
const presetsOf = (page: Page, name: string) =>
  one(page, `#f-${name}`)
    .closest('.field-range')!
    .querySelectorAll(':scope > .presets a')
    .map((a) => [textOf(a), a.getAttribute('href')]);

describe('the date fields', () => {
  it.each([
    ['/admin/checks', ['check_date_from', 'check_date_to']],
    ['/admin/equipment/assignments', ['assign_date_from', 'assign_date_to']],
    ['/admin/equipment/returns', ['return_date_from', 'return_date_to']],
    ['/admin/equipment/exchanges', ['exchange_date_from', 'exchange_date_to']],
    ['/admin', ['as_of']],
    ['/admin/attention', ['as_of']],
    ['/admin/attention/unchecked', ['as_of']],
  ])('of %s are typed and shown as YYYY-MM-DD (not the browser’s own date form), a bad one kept as typed', async (path, names) => {
    const page = parseHtml((await request(app).get(`${path}?${names[0]}=2024-13-01`).expect(400)).text);
    for (const name of names) {
      const input = one(page, `#f-${name}`);
      expect([input.getAttribute('type'), input.getAttribute('placeholder'), input.getAttribute('pattern')]).toEqual([
        'text',
        'YYYY-MM-DD',
        '[0-9]{4}-[0-9]{2}-[0-9]{2}',
      ]);
      // Named for the calendar button public/admin/dates.js adds.
      expect(input.getAttribute('data-date')).toBe(textOf(one(page, `label[for="f-${name}"]`)));
    }
    expect(one(page, `#f-${names[0]}`).getAttribute('value')).toBe('2024-13-01');
    expect(one(page, `#f-${names[0]}`).getAttribute('aria-invalid')).toBe('true');
    const ok = parseHtml((await request(app).get(`${path}?${names[0]}=2024-06-01`).expect(200)).text);
    expect(one(ok, `#f-${names[0]}`).getAttribute('value')).toBe('2024-06-01');
    expect(ok.querySelector('script[src$="/dates.js"]')).not.toBeNull();
  });
});

describe('the date presets', () => {
  it('are today, the last 7 days to today, this month to today, the whole month before, and this year to today', () => {
    expect(datePresets('2026-03-15')).toEqual([
      { label: 'Today', from: '2026-03-15', to: '2026-03-15' },
      { label: 'Last 7 days', from: '2026-03-09', to: '2026-03-15' },
      { label: 'This month', from: '2026-03-01', to: '2026-03-15' },
      { label: 'Last month', from: '2026-02-01', to: '2026-02-28' },
      { label: 'This year', from: '2026-01-01', to: '2026-03-15' },
    ]);
    // Across a year's turn, and a leap February.
    expect(datePresets('2024-01-03')).toEqual([
      { label: 'Today', from: '2024-01-03', to: '2024-01-03' },
      { label: 'Last 7 days', from: '2023-12-28', to: '2024-01-03' },
      { label: 'This month', from: '2024-01-01', to: '2024-01-03' },
      { label: 'Last month', from: '2023-12-01', to: '2023-12-31' },
      { label: 'This year', from: '2024-01-01', to: '2024-01-03' },
    ]);
    expect(datePresets('2024-03-31')[3]).toEqual({ label: 'Last month', from: '2024-02-01', to: '2024-02-29' });
  });

  it('start from today in the service’s time zone', () => {
    const at = new Date('2026-03-31T22:30:00Z');
    expect(dayIn('UTC', at)).toBe('2026-03-31');
    expect(dayIn('Asia/Dubai', at)).toBe('2026-04-01');
    expect(dayIn('America/New_York', new Date('2026-04-01T02:00:00Z'))).toBe('2026-03-31');
  });

  it.each([
    ['/admin/checks', 'check_date'],
    ['/admin/equipment/assignments', 'assign_date'],
    ['/admin/equipment/returns', 'return_date'],
    ['/admin/equipment/exchanges', 'exchange_date'],
  ])('are links beside the range of %s, keeping the other filters and settings but not the page', async (path, range) => {
    const page = parseHtml((await request(app).get(`${path}?3pl=Swift%20%26%20Co&sort=rider_id&per_page=50&page=2`).expect(200)).text);
    const keep = '3pl=Swift+%26+Co&sort=rider_id&per_page=50';
    expect(presetsOf(page, `${range}_to`)).toEqual([
      ['Today', `${path}?${keep}&${range}_from=2024-06-15&${range}_to=2024-06-15`],
      ['Last 7 days', `${path}?${keep}&${range}_from=2024-06-09&${range}_to=2024-06-15`],
      ['This month', `${path}?${keep}&${range}_from=2024-06-01&${range}_to=2024-06-15`],
      ['Last month', `${path}?${keep}&${range}_from=2024-05-01&${range}_to=2024-05-31`],
      ['This year', `${path}?${keep}&${range}_from=2024-01-01&${range}_to=2024-06-15`],
    ]);
    // Under both fields of the range: the two fields and the links are one group.
    const group = one(page, `#f-${range}_from`).closest('.field-range')!;
    expect(group.querySelector(`#f-${range}_to`)).not.toBeNull();
    expect(group.getAttribute('role')).toBe('group');
  });

  it('replace a range already set, and lead to the rows of those days', async () => {
    const page = parseHtml(
      (await request(app).get('/admin/equipment/returns?return_date_from=2020-01-01&return_date_to=2020-12-31').expect(200)).text,
    );
    const [, , , lastMonth] = presetsOf(page, 'return_date_to');
    expect(lastMonth[1]).toBe('/admin/equipment/returns?return_date_from=2024-05-01&return_date_to=2024-05-31');
    // Both of the fixture's returns were in May 2024 (the second at 23:59:59 on the 31st).
    const rows = tableRows((await request(app).get(lastMonth[1]!).expect(200)).text);
    expect(rows.map((row) => row[0])).toEqual(['2024-05-31 23:59:59', '2024-05-02 00:00:00']);
  });

  it('are not offered on a list without a date range', async () => {
    const html = (await request(app).get('/admin/equipment/riders').expect(200)).text;
    expect(parseHtml(html).querySelectorAll('.presets')).toHaveLength(0);
  });
});
