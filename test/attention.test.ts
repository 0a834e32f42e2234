// "Needs attention" (src/rules/, /admin/attention): each rule on rows made for it, on a
// copy of the fixture, as of the end of 2025-01-31, with the default thresholds (2 failed checks, 60
// days unchecked, Lost and Accident over 30 days against the 365 before).
import { EventEmitter } from 'node:events';
import request from 'supertest';
import express from 'express';
import type { Response } from 'express';
import { createAdminRouter } from '../src/admin/router';
import { attentionCounter } from '../src/admin/attention';
import { DEFAULT_ATTENTION } from '../src/config';
import { toNative } from '../src/db/knex';
import { RULES, ruleRows } from '../src/rules';
import { testApp, type TestApp } from './support/app';
import { one, tableRows, textOf } from './support/html';
import { applied } from './support/rolled-back';

let t: TestApp;
beforeAll(async () => {
  t = testApp('attention');
  await t.owner.query(`
    -- failing checks: rider 105's last two checks failed (sticker, then ID): listed.
    -- Rider 106 failed, then passed; rider 104's one check (9003) failed alone: not listed.
    INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid) VALUES
      (9101, 105, 1, '2025-01-10 08:00:00+00', true, true, false),
      (9102, 105, 2, '2025-01-20 08:00:00+00', false, true, true),
      (9103, 106, 1, '2025-01-10 08:00:00+00', false, false, false),
      (9104, 106, 1, '2025-01-20 08:00:00+00', true, true, true),
      -- after the as-of day: not counted
      (9105, 101, 1, '2025-02-05 08:00:00+00', false, false, false),
      (9106, 101, 1, '2025-02-06 08:00:00+00', false, false, false);
    -- unchecked: rider 107 holds a helmet since 2025-01-01 and was never checked: listed first.
    -- Lost and Accident: Swift & Co (rider 9007199254740993) lost a helmet on 2025-01-15, against one
    -- Accident in the year before (7003); 100%_Express (rider 102) lost a bag on 2025-01-20, none
    -- before. Company 4's only Lost (7002, 2024-04-01) is older than the window: not listed.
    INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type, deleted_at) VALUES
      (1020, 107, 10, 11, '2025-01-01 09:00:00+00', 1, 0, 'assign', NULL),
      (1021, 9007199254740993, 10, 11, '2024-09-01 09:00:00+00', 1, 0, 'assign', '2025-01-15 10:00:00+00'),
      (1022, 9007199254740993, 10, 11, '2025-01-15 10:00:00+00', 1, 0, 'exchange', NULL),
      (1023, 102, 20, 21, '2024-09-01 09:00:00+00', 1, 0, 'assign', '2025-01-20 10:00:00+00'),
      (1024, 102, 20, 21, '2025-01-20 10:00:00+00', 1, 0, 'exchange', NULL);
    INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by) VALUES
      (7101, 1021, 1022, '2025-01-15 10:00:00+00', 'Lost item', 'Lost', 1),
      (7102, 1023, 1024, '2025-01-20 10:00:00+00', 'Lost item', 'Lost', 1);
  `);
  await applied(t.owner);
});
afterAll(() => t.close());

const AS_OF = '2025-01-31';
/**
 * One rule's section of the page: its count and its table's rows, as cell texts, without the last two
 * columns ("Handled before" and the handle control: test/attention-handling.test.ts reads those).
 */
function section(html: string, name: string) {
  const found = one(html, `section.panel.attention#${name}`);
  const list = found.querySelector('table.list');
  // The rule's own columns: not the earlier note, whom the row was given to, nor the Mark handled control.
  const labels = list ? [...list.querySelectorAll('thead th')].map((th) => textOf(th)) : [];
  const own = labels.map((label) => !['Handled before', 'Assigned to', 'Handle'].includes(label));
  return { body: found.outerHTML, rows: list ? tableRows(list).map((row) => row.filter((_, i) => own[i])) : [] };
}
const page = async (app: express.Express, query = `?as_of=${AS_OF}`) =>
  (await request(app).get(`/admin/attention${query}`).expect(200)).text;

describe('the rules, as of the end of one day', () => {
  it('failing checks: riders whose last two checks each failed a validation', async () => {
    const { rows } = section(await page(t.app), 'failing-checks');
    expect(rows).toEqual([['105', 'Lee Park', 'swift & co', '2025-01-20', '2025-01-10', 'ID']]);
  });

  it('items past their exchange day: riders holding items whose product’s period has run out, longest overdue first', async () => {
    const { rows } = section(await page(t.app), 'overdue-items');
    expect(rows.map((row) => [row[0], row[3], row[4], row[5]])).toEqual([
      ['104', '1 item: Helmet / M', '2024-09-28', '125'],
      ['101', '1 item: Helmet / L', '2024-12-07', '55'],
      ['105', '1 item: Helmet / M', '2024-12-28', '34'],
      ['9007199254740993', '1 item: Helmet / L', '2025-01-28', '3'],
    ]);
  });

  it('items past their exchange day: one row per rider, with each of the rider’s overdue items, on the demo', async () => {
    const demo = testApp('demo');
    try {
      const counted = (
        await demo.pool.query(
          `SELECT k.rider_id::text AS rider, count(*)::int AS n, min(k.eligible_at) AS first FROM kept_assignment_days k
          WHERE (k.deleted_at IS NULL OR k.deleted_at > k.eligible_at) AND k.eligible_at < current_date::timestamptz
            AND (k.deleted_at IS NULL OR k.deleted_at >= (current_date + 1)::timestamptz)
          GROUP BY 1 ORDER BY 3, 1`,
        )
      ).rows;
      expect(counted.some((row) => row.n > 1)).toBe(true);
      const csv = (await request(demo.app).get('/admin/attention/overdue-items.csv').expect(200)).text.trimEnd().split('\n').slice(1);
      const listed = csv.map((line) => [line.split(',')[0], Number(/,"?(\d+) items?: /.exec(line)![1])]);
      expect(new Set(listed.map(([rider]) => rider)).size).toBe(listed.length);
      expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(counted.map((row) => [row.rider, row.n])));
    } finally {
      await demo.close();
    }
  });

  it('Lost and Accident by 3PL: the last 30 days against the usual rate', async () => {
    const { rows, body } = section(await page(t.app), 'losses');
    expect(rows).toEqual([
      ['100%_Express', '1', '0', 'Yes'],
      ['Swift & Co', '1', '0.1', 'Yes'],
    ]);
    // Each 3PL links to its exchanges of the window.
    expect(body).toContain(
      'href="/admin/equipment/exchanges?3pl=Swift+%26+Co&amp;exchange_date_from=2025-01-02&amp;exchange_date_to=2025-01-31"',
    );
  });

  it('riders not checked lately: holding equipment, no check in 60 days, never checked first', async () => {
    const { rows } = section(await page(t.app), 'unchecked');
    expect(rows.map((row) => [row[0], row[3], row[4]])).toEqual([
      ['107', '1', 'Never'],
      ['9007199254740993', '2', '2024-04-30'],
      ['101', '2', '2024-05-01'],
      ['102', '2', '2024-05-31'],
      ['104', '1', '2024-06-01'],
    ]);
  });

  it('counts each rule on the page and on the home page, linking to its section', async () => {
    const html = await page(t.app);
    const counts = [...html.matchAll(/<li><a href="#([a-z-]+)"><span class="figure">(\d+)<\/span>/g)].map(([, name, n]) => [name, n]);
    expect(counts).toEqual([
      ['failing-checks', '1'],
      ['overdue-items', '4'],
      ['losses', '2'],
      ['unchecked', '5'],
    ]);
    const home = (await request(t.app).get(`/admin?as_of=${AS_OF}`).expect(200)).text;
    expect(
      [...home.matchAll(/<li><a href="\/admin\/attention\?as_of=2025-01-31#([a-z-]+)"><span class="figure">(\d+)<\/span>/g)].map(
        ([, name, n]) => [name, n],
      ),
    ).toEqual(counts);
  });

  it('follows its settings: with 1 failed check and 300 days unchecked', async () => {
    const strict = testApp('attention', { ATTENTION_FAILED_CHECKS: '1', ATTENTION_UNCHECKED_DAYS: '300' });
    try {
      const html = await page(strict.app);
      expect(section(html, 'failing-checks').rows.map((row) => row[0])).toEqual(['105', '104', '102', '9007199254740993']);
      expect(section(html, 'unchecked').rows.map((row) => row[0])).toEqual(['107']);
      expect(html).toContain('Riders whose last 1 patrol checks each failed a validation');
    } finally {
      await strict.close();
    }
  });
});

describe('by 3PL, and the weeks', () => {
  /** The rule × 3PL table: [3PL, figure per rule], and the hrefs of its figures. */
  const byCompany = (html: string) => {
    const table = one(html, 'table.by-3pl');
    const rows = [...table.querySelectorAll('tbody tr'), ...table.querySelectorAll('tfoot tr')].map((tr) => [
      textOf(tr.querySelector('th')!),
      ...tr.querySelectorAll('td').map((td) => textOf(td)),
    ]);
    return { rows, hrefs: table.querySelectorAll('td a').map((a) => a.getAttribute('href')) };
  };
  const figures = (html: string) => [...html.matchAll(/<li><a href="#([a-z-]+)"><span class="figure">(\d+)<\/span>/g)].map(([, , n]) => n);

  it('splits every count by 3PL, each figure opening that 3PL’s rows', async () => {
    const { rows, hrefs } = byCompany(await page(t.app));
    expect(rows.at(-1)).toEqual(['All', '1', '4', '2', '5']);
    expect(rows.find((row) => row[0] === 'Swift & Co')).toEqual(['Swift & Co', '0', '2', '1', '3']);
    // Each column sums to its rule's count.
    for (let i = 1; i <= 4; i++) expect(rows.slice(0, -1).reduce((n, row) => n + Number(row[i]), 0)).toBe(Number(rows.at(-1)![i]));
    expect(hrefs).toContain(`/admin/attention/overdue-items?as_of=${AS_OF}&3pl=Swift+%26+Co`);
  });

  it('shows one 3PL alone when the form names it: its counts, rows and weeks', async () => {
    const html = await page(t.app, `?as_of=${AS_OF}&3pl=Swift+%26+Co`);
    expect(figures(html)).toEqual(['0', '2', '1', '3']);
    expect(section(html, 'unchecked').rows.map((row) => row[0])).toEqual(['107', '9007199254740993', '101']);
    expect(section(html, 'losses').rows.map((row) => row[0])).toEqual(['Swift & Co']);
    expect(html).not.toContain('class="list by-3pl"');
  });

  it('gives each rider rule its last 12 weeks, ending with the riders in it at the as-of day', async () => {
    const html = await page(t.app);
    for (const [rule, inRule] of [
      ['failing-checks', '1'],
      ['overdue-items', '4'],
      ['unchecked', '5'],
    ]) {
      const weeks = tableRows(one(html, `section#${rule} table.flow-table`));
      expect(weeks).toHaveLength(12);
      expect(weeks.at(-1)!.at(-1)).toBe(inRule);
    }
    // The picture: each week's column shows the riders in the rule at its end, as the table does, and as
    // the page asked for that day counts them (no row of this copy is handled); its caption says which way.
    for (const rule of ['failing-checks', 'overdue-items', 'unchecked']) {
      const figures = one(html, `section#${rule} .queue-trend`)
        .querySelectorAll('.trend-full')
        .map((span) => textOf(span));
      expect(figures).toEqual(tableRows(one(html, `section#${rule} table.flow-table`)).map((row) => row.at(-1)));
      const ends = one(html, `section#${rule} .queue-trend`)
        .querySelectorAll('.visually-hidden')
        .map((span) => /(\d{4}-\d\d-\d\d)$/.exec(textOf(span))![1]);
      for (const [i, day] of ends.entries()) {
        const counted = textOf(one(await page(t.app, `?as_of=${day}`), `.attention-index a[href$="#${rule}"] .figure`));
        expect([day, counted]).toEqual([day, figures[i]]);
      }
      const [first, last] = [Number(figures[0].replace(/,/g, '')), Number(figures.at(-1)!.replace(/,/g, ''))];
      expect(textOf(one(html, `section#${rule} .queue-trend figcaption strong`))).toBe(
        `Is the queue shrinking? ${last > first ? 'Growing' : last < first ? 'Shrinking' : 'Steady'}:`,
      );
    }
    // Rider 107 (never checked) got a helmet on 2025-01-01 and entered "not checked lately" that day.
    const week = one(html, 'section#unchecked table.flow-table')
      .querySelectorAll('tbody tr')
      .find((tr) => textOf(tr.querySelector('th')!) === '2024-12-28 – 2025-01-03')!;
    expect(textOf(week.querySelector('td')!)).toMatch(/^[1-9]/);
  });
});

describe('the counts are fresh', () => {
  const homeCounts = async () => {
    const home = (await request(t.app).get(`/admin?as_of=${AS_OF}`).expect(200)).text;
    return [...home.matchAll(/#([a-z-]+)"><span class="figure">(\d+)<\/span>/g)].map(([, , n]) => Number(n));
  };

  it('shows a check written a moment ago at the next visit, on the home page and on the page', async () => {
    expect(await homeCounts()).toEqual([1, 4, 2, 5]);
    // Rider 106 failed, then passed; two more failures put them back among the failing riders.
    await t.owner.query(`INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid) VALUES
      (9190, 106, 1, '2025-01-25 08:00:00+00', false, true, true), (9191, 106, 1, '2025-01-26 08:00:00+00', true, false, true)`);
    await applied(t.owner);
    try {
      expect(await homeCounts()).toEqual([2, 4, 2, 5]);
      expect(section(await page(t.app), 'failing-checks').rows.map((row) => row.slice(0, 1).concat(row.slice(3)))).toEqual([
        ['106', '2025-01-26', '2025-01-25', 'plate'],
        ['105', '2025-01-20', '2025-01-10', 'ID'],
      ]);
    } finally {
      await t.owner.query('DELETE FROM patrol_checks WHERE id IN (9190, 9191)');
      await applied(t.owner);
    }
    expect(await homeCounts()).toEqual([1, 4, 2, 5]);
  });

  it('counts one 3PL for a supervisor limited to it', async () => {
    const count = attentionCounter(t.pool, DEFAULT_ATTENTION);
    // An answer on a connection still open: its client's signal never aborts.
    const socket = Object.assign(new EventEmitter(), { destroyed: false });
    const res = (companyId?: string) =>
      ({ locals: companyId ? { supervisor: { companyId } } : {}, req: { socket }, once: () => undefined }) as unknown as Response;
    expect((await count(res(), AS_OF, false)).map((c) => c.total)).toEqual([1, 4, 2, 5]);
    expect((await count(res('1'), AS_OF, false)).map((c) => c.total)).toEqual([0, 2, 1, 3]);
  });
});

describe('today, read as now', () => {
  // Without an as-of day the rules read the gaps still open and the items held now (kept counts);
  // with today's date they judge the end of today from the history. With nothing dated after now,
  // both give the same rows, on this database and on the demo's.
  it.each(['attention', 'demo'] as const)('gives the rows of the end of today, on the %s data', async (database) => {
    const app = database === 'attention' ? t : testApp('demo');
    try {
      const [{ today }] = (await app.pool.query(`SELECT to_char(current_date, 'YYYY-MM-DD') AS today`)).rows;
      for (const rule of RULES) {
        const { name } = rule;
        for (const settings of [DEFAULT_ATTENTION, { ...DEFAULT_ATTENTION, failedChecks: 1, uncheckedDays: 20 }]) {
          const rows = async (asOf: string | null) => (await app.pool.query(toNative(ruleRows(rule, { asOf, settings, scope: {} })))).rows;
          const now = await rows(null);
          expect({ name, rows: now }).toEqual({ name, rows: await rows(today) });
          if (database === 'demo' && rule.subject === 'rider') expect(now.length).toBeGreaterThan(0);
        }
      }
    } finally {
      if (app !== t) await app.close();
    }
  });
});

describe('the lists as CSV, and the 3PL scope', () => {
  it('downloads a whole rule as CSV', async () => {
    const res = await request(t.app).get(`/admin/attention/overdue-items.csv?as_of=${AS_OF}`).expect(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="attention-overdue-items-${AS_OF}.csv"`);
    const lines = res.text.trimEnd().split('\n');
    expect(lines[0]).toBe('\uFEFFRider ID,Rider,3PL,Items,Due since,Days past,Handled before,Assigned to'); // with the BOM spreadsheets read as UTF-8
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual(['104', '101', '105', '9007199254740993']);
    await request(t.app).get('/admin/attention/nothing.csv').expect(404);
    await request(t.app).get('/admin/attention/unchecked.csv?as_of=2025-02-30').expect(400);
  });

  it('shows a supervisor limited to one 3PL only that 3PL’s riders', async () => {
    const scoped = express()
      .use((_req, res, next) => {
        res.locals.supervisor = { id: '1', username: 'swift-lead', companyId: '1' }; // Swift & Co
        next();
      })
      .use('/admin', createAdminRouter({ pool: t.pool, log: () => undefined }));
    const html = await page(scoped);
    expect(section(html, 'failing-checks').rows).toEqual([]);
    expect(section(html, 'overdue-items').rows.map((row) => row[0])).toEqual(['101', '9007199254740993']);
    expect(section(html, 'losses').rows.map((row) => row[0])).toEqual(['Swift & Co']);
    expect(section(html, 'unchecked').rows.map((row) => row[0])).toEqual(['107', '9007199254740993', '101']);
    const csv = (await request(scoped).get(`/admin/attention/unchecked.csv?as_of=${AS_OF}`).expect(200)).text.trimEnd().split('\n');
    expect(csv.slice(1).map((line) => line.split(',')[0])).toEqual(['107', '9007199254740993', '101']);
    // The rule × 3PL table holds its 3PL alone.
    expect(tableRows(one(html, 'table.by-3pl')).length).toBe(1);
    expect(textOf(one(html, 'table.by-3pl tbody th'))).toBe('Swift & Co');
  });

  it('says what is wrong with a bad day, beside the field', async () => {
    const res = await request(t.app).get('/admin/attention?as_of=2025-13-01').expect(400);
    expect(res.text).toContain('“2025-13-01” must be a real calendar day written YYYY-MM-DD');
  });
});

describe('a rider’s report', () => {
  const openPoints = (html: string) =>
    one(html, 'section.open-points')
      .querySelectorAll('li')
      .map((li) => textOf(li));

  it('lists the rider’s open points as of the report’s day', async () => {
    expect(openPoints((await request(t.app).get(`/admin/riders/105/report?as_of=${AS_OF}`).expect(200)).text)).toEqual([
      'The last checks failed a validation, since 2025-01-10; the newest, on 2025-01-20, failed: ID.',
      'Helmet / M is past its exchange day (2024-12-28, 34 days ago).',
    ]);
    expect(openPoints((await request(t.app).get(`/admin/riders/9007199254740993/report?as_of=${AS_OF}`).expect(200)).text)).toEqual([
      'Helmet / L is past its exchange day (2025-01-28, 3 days ago).',
      'Lost exchange of Helmet / M on 2025-01-15.',
      'Holds equipment and was last checked on 2024-04-30.',
    ]);
    expect(openPoints((await request(t.app).get(`/admin/riders/107/report?as_of=${AS_OF}`).expect(200)).text)).toEqual([
      'Holds equipment and has never been checked.',
    ]);
  });

  it('says there are none for a rider with nothing open', async () => {
    const html = (await request(t.app).get(`/admin/riders/106/report?as_of=${AS_OF}`).expect(200)).text;
    expect(openPoints(html)).toEqual([]);
    expect(html).toMatch(/<h2>Open points<\/h2>\s*<p class="empty">None\.<\/p>/);
  });
});
