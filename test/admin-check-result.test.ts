import express from 'express';
import request from 'supertest';
import { createAdminRouter } from '../src/admin/router';
import { requestId } from '../src/http/request-id';
import { testApp, type TestApp } from './support/app';
import { fieldError, one, optionsOf, parseHtml, tableRows, textOf } from './support/html';

// The checks list's result on the demo data: a check fails when its ID, plate or sticker validation
// fails. Every total, page and download is held to a count in PostgreSQL of the same checks, written
// here on its own (not with the service's SQL), alone, with each other filter, and for a supervisor
// limited to one 3PL.
let t: TestApp;
let scopedApp: express.Express;
/** Values found in the demo data by SQL: a patroller, a rider, a week, the 3PLs. */
let found: { patroller: string; rider: string; from: string; to: string; company: { id: string; name: string }; other: string };

beforeAll(async () => {
  t = testApp('demo');
  const first = async (sql: string) => (await t.pool.query(sql)).rows[0];
  // The busiest patroller and rider with both failed and passed checks; the last week with checks.
  const mixed = (column: string) =>
    first(`SELECT ${column}::text AS id FROM patrol_checks GROUP BY ${column}
          HAVING bool_or(NOT id_valid OR NOT plate_valid OR NOT sticker_valid) AND bool_or(id_valid AND plate_valid AND sticker_valid)
          ORDER BY count(*) DESC, ${column} LIMIT 1`);
  const week = await first(
    `SELECT to_char(max(checked_at)::date - 6, 'YYYY-MM-DD') AS "from", to_char(max(checked_at), 'YYYY-MM-DD') AS "to" FROM patrol_checks`,
  );
  const companies = (
    await t.pool.query(`SELECT c.id::text, c.name FROM companies c JOIN riders r ON r.company_id = c.id
                         JOIN patrol_checks pc ON pc.rider_id = r.id GROUP BY c.id ORDER BY count(*) DESC, c.id`)
  ).rows as Array<{ id: string; name: string }>;
  found = {
    patroller: (await mixed('patroller_id')).id,
    rider: (await mixed('rider_id')).id,
    ...week,
    company: companies[0],
    other: companies[1].name,
  };
  scopedApp = express()
    .use(requestId)
    .use((_req, res, next) => {
      res.locals.supervisor = { id: '1', username: 'lead', companyId: found.company.id };
      res.locals.csrfToken = 'token-123';
      next();
    })
    .use('/admin', createAdminRouter({ pool: t.pool, log: () => undefined }));
});
afterAll(() => t.close());

const FAILED = '(NOT pc.id_valid OR NOT pc.plate_valid OR NOT pc.sticker_valid)';
const PASSED = 'pc.id_valid AND pc.plate_valid AND pc.sticker_valid';
const JOINED = 'patrol_checks pc JOIN riders r ON r.id = pc.rider_id JOIN companies c ON c.id = r.company_id';

/** The ids of the checks `where` keeps (3PL scope included), newest first, as the list orders them. */
async function idsWhere(where: string, params: unknown[]): Promise<string[]> {
  const { rows } = await t.pool.query(
    `SELECT pc.id::text AS id FROM ${JOINED} WHERE ${where} ORDER BY pc.checked_at DESC, pc.id DESC`,
    params,
  );
  return rows.map((row) => row.id as string);
}

/** Each case: its query, and the same filters as SQL (beside the result), with their parameters. */
type Case = [name: string, query: () => Record<string, string>, where: () => [string, unknown[]]];
const cases: Case[] = [
  ['alone', () => ({}), () => ['true', []]],
  ['a patroller', () => ({ tpatroller_id: found.patroller }), () => ['pc.patroller_id = $1', [found.patroller]]],
  ['a rider', () => ({ rider_id: found.rider }), () => ['pc.rider_id = $1', [found.rider]]],
  [
    'a week of days',
    () => ({ check_date_from: found.from, check_date_to: found.to }),
    () => ['pc.checked_at >= $1::date AND pc.checked_at < $2::date + 1', [found.from, found.to]],
  ],
  ['ID valid', () => ({ is_validation: '1' }), () => ['pc.id_valid', []]],
  ['plate failed', () => ({ license_plate: '0' }), () => ['NOT pc.plate_valid', []]],
  ['sticker valid', () => ({ sticker_validation: 'true' }), () => ['pc.sticker_valid', []]],
  ['a 3PL', () => ({ '3pl': found.company.name }), () => ['c.name = $1', [found.company.name]]],
  [
    'a 3PL and a week',
    () => ({ '3pl': found.other, check_date_from: found.from, check_date_to: found.to }),
    () => ['c.name = $1 AND pc.checked_at >= $2::date AND pc.checked_at < $3::date + 1', [found.other, found.from, found.to]],
  ],
];

const qs = (query: Record<string, string>) => new URLSearchParams(query).toString();
/** The total a list page states ("1,234 patrol checks match these filters"). */
function totalOf(html: string): number {
  const summary = parseHtml(html).querySelector('.summary p');
  if (!summary) {
    expect(textOf(html)).toContain('No patrol checks match these filters.');
    return 0;
  }
  return Number(/^([\d,]+) patrol checks?\b/.exec(textOf(summary))![1].replace(/,/g, ''));
}
const resultCells = (html: string) =>
  parseHtml(html)
    .querySelectorAll('tbody td[data-label="Result"]')
    .map((td) => textOf(td));

/** The CSV's rows as [check id, Result], from the end of each line (names may hold commas). */
function csvRows(text: string): Array<[string, string]> {
  const lines = text
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split('\n');
  expect(lines[0]).toBe('Check,Checked at,Rider ID,Rider,3PL,Patroller ID,Patroller,Result,ID,Plate,Sticker,Score,Items');
  return lines.slice(1).map((line) => {
    const match = /^(\d+),.*,("Failed: [^"]+"|Failed: \w+|Passed),(?:Passed|Failed),(?:Passed|Failed),(?:Passed|Failed),-?\d*,\d+$/.exec(
      line,
    );
    if (!match) throw new Error(`not a check's line: ${line}`);
    return [match[1], match[2].replace(/"/g, '')];
  });
}

/** The Result each check should show: Passed, or Failed with what failed, from the database. */
async function expectedResults(ids: string[]): Promise<Map<string, string>> {
  const { rows } = await t.pool.query(
    `SELECT id::text, CASE WHEN id_valid AND plate_valid AND sticker_valid THEN 'Passed'
            ELSE 'Failed: ' || array_to_string(ARRAY[CASE WHEN NOT id_valid THEN 'ID' END, CASE WHEN NOT plate_valid THEN 'plate' END,
                                                     CASE WHEN NOT sticker_valid THEN 'sticker' END], ', ') END AS result
       FROM patrol_checks WHERE id = ANY($1::bigint[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id as string, row.result as string]));
}

describe('result=failed and result=passed', () => {
  it.each(cases)('with %s: the total, the page and the CSV are the checks PostgreSQL counts', async (_name, query, where) => {
    const [condition, params] = where();
    const failed = await idsWhere(`(${condition}) AND ${FAILED}`, params);
    const passed = await idsWhere(`(${condition}) AND ${PASSED}`, params);
    const all = await idsWhere(condition, params);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length + passed.length).toBe(all.length);
    expect(all.length).toBeLessThan(10000); // below the list's count cap: every total is exact
    for (const [result, ids] of [
      ['failed', failed],
      ['passed', passed],
    ] as const) {
      const html = (
        await request(t.app)
          .get(`/admin/checks?${qs({ ...query(), result })}`)
          .expect(200)
      ).text;
      expect(totalOf(html)).toBe(ids.length);
      // The first page: the newest of those checks, each with its Result.
      const page = tableRows(html).map((row) => row[0]);
      expect(page).toEqual(ids.slice(0, 25));
      const expected = await expectedResults(page);
      expect(resultCells(html)).toEqual(page.map((id) => expected.get(id)));
      expect(resultCells(html).every((text) => (result === 'failed' ? /^Failed: / : /^Passed$/).test(text))).toBe(true);
      // The download: every one of them, one line each, with the same Result.
      const csv = csvRows(
        (
          await request(t.app)
            .get(`/admin/checks.csv?${qs({ ...query(), result })}`)
            .expect(200)
        ).text,
      );
      expect(csv).toHaveLength(totalOf(html));
      expect(csv.map(([id]) => id)).toEqual(ids);
      const results = await expectedResults(ids);
      expect(csv.every(([id, text]) => results.get(id) === text)).toBe(true);
    }
  });

  it('pages through the failed checks by number and by the Next link, in the list’s order', async () => {
    const failed = await idsWhere(FAILED, []);
    const third = (await request(t.app).get('/admin/checks?result=failed&page=3').expect(200)).text;
    expect(tableRows(third).map((row) => row[0])).toEqual(failed.slice(50, 75));
    const next = one(third, 'a[rel="next"]').getAttribute('href')!;
    expect(next).toMatch(/^\/admin\/checks\?result=failed&page=4&after=/);
    const fourth = (await request(t.app).get(next).expect(200)).text;
    expect(tableRows(fourth).map((row) => row[0])).toEqual(failed.slice(75, 100));
  });
});

describe('the filter in the form, the chips and the links', () => {
  it('is a select of Passed and Failed, shown as a chip that removes it', async () => {
    const html = (await request(t.app).get('/admin/checks?result=failed&is_validation=1').expect(200)).text;
    expect(optionsOf(html, 'select#f-result')).toEqual([
      ['', 'Any'],
      ['passed', 'Passed'],
      ['failed', 'Failed'],
    ]);
    expect(one(html, 'select#f-result option[selected]').getAttribute('value')).toBe('failed');
    const chips = parseHtml(html)
      .querySelectorAll('ul.chips li')
      .map((li) => [textOf(li), li.querySelector('a')!.getAttribute('href')]);
    expect(chips).toContainEqual(['Result: Failed ×Remove the filter Result', '/admin/checks?is_validation=1']);
    expect(one(html, 'a.download').getAttribute('href')).toBe('/admin/checks.csv?result=failed&is_validation=1');
  });

  it('answers a value other than passed or failed with the form, the message beside the field, and no table', async () => {
    for (const bad of ['maybe', 'Failed', '0']) {
      const html = (await request(t.app).get(`/admin/checks?result=${bad}&is_validation=1`).expect(400)).text;
      expect(fieldError(html, 'result')).toBe(`“${bad}” must be one of: Passed, Failed`);
      expect(one(html, 'select#f-result').getAttribute('aria-invalid')).toBe('true');
      expect(one(html, 'select#f-is_validation option[selected]').getAttribute('value')).toBe('1');
      expect(parseHtml(html).querySelector('tbody')).toBeNull();
    }
    await request(t.app).get('/admin/checks.csv?result=maybe').expect(400);
  });

  it('is the admin list’s own: the API does not take it', async () => {
    const res = await request(t.app).get('/v2/patrollerchecks?result=failed').expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['result']);
  });
});

describe('for a supervisor limited to one 3PL', () => {
  const inScope = () => ['r.company_id = $1', [found.company.id]] as [string, unknown[]];

  it.each([
    ['failed', FAILED],
    ['passed', PASSED],
  ])('result=%s lists and downloads that 3PL’s checks only', async (result, condition) => {
    const [scope, params] = inScope();
    for (const [query, extra, extraParams] of [
      [{ result }, 'true', []],
      [
        { result, check_date_from: found.from, check_date_to: found.to },
        `pc.checked_at >= $2::date AND pc.checked_at < $3::date + 1`,
        [found.from, found.to],
      ],
      [{ result, '3pl': found.company.name }, 'true', []],
    ] as Array<[Record<string, string>, string, unknown[]]>) {
      const ids = await idsWhere(`${scope} AND ${extra} AND (${condition})`, [...params, ...extraParams]);
      expect(ids.length).toBeGreaterThan(0);
      const html = (
        await request(scopedApp)
          .get(`/admin/checks?${qs(query)}`)
          .expect(200)
      ).text;
      expect(totalOf(html)).toBe(ids.length);
      expect(tableRows(html).map((row) => row[0])).toEqual(ids.slice(0, 25));
      const csv = csvRows(
        (
          await request(scopedApp)
            .get(`/admin/checks.csv?${qs(query)}`)
            .expect(200)
        ).text,
      );
      expect(csv.map(([id]) => id)).toEqual(ids);
    }
    // Another 3PL's failed checks are none of this supervisor's.
    const other = (
      await request(scopedApp)
        .get(`/admin/checks?${qs({ result, '3pl': found.other })}`)
        .expect(200)
    ).text;
    expect(textOf(other)).toContain('No patrol checks match these filters.');
  });
});

describe('the overview links its failures to the failed checks', () => {
  /** Each failure figure of the overview with its link: the cards, the 3PL rows, the days of the chart. */
  function failureLinks(html: string): Array<{ figure: number; href: string }> {
    const page = parseHtml(html);
    const figures = page.querySelectorAll('a.failed-link').map((a) => ({
      figure: Number(/^([\d,]+) failed$/.exec(textOf(a))![1].replace(/,/g, '')),
      href: a.getAttribute('href')!,
    }));
    const days = page.querySelectorAll('figure.day-chart a').map((a) => ({
      figure: Number(/, (\d+) failed: list the failed checks$/.exec(a.getAttribute('aria-label')!)![1]),
      href: a.getAttribute('href')!,
    }));
    return [...figures, ...days];
  }

  it.each([
    ['every 3PL', () => t.app],
    ['a supervisor limited to one 3PL', () => scopedApp],
  ])('each figure is the total of the list it links to (%s)', async (name, app) => {
    const html = (await request(app()).get(`/admin?as_of=${found.to}`).expect(200)).text;
    const links = failureLinks(html);
    // Two cards, two windows per 3PL, and the days of the last week at least.
    expect(links.length).toBeGreaterThanOrEqual(2 + 2 + 7);
    for (const { figure, href } of links) {
      expect(href).toMatch(
        /^\/admin\/checks\?check_date_from=\d{4}-\d{2}-\d{2}&check_date_to=\d{4}-\d{2}-\d{2}(&3pl=[^&]+)?&result=failed$/,
      );
      const list = (await request(app()).get(href).expect(200)).text;
      expect([href, totalOf(list)]).toEqual([href, figure]);
    }
    // The last day's column links to that day's failed checks (of every 3PL, the demo has some).
    if (name === 'every 3PL')
      expect(links.map((link) => link.href)).toContain(`/admin/checks?check_date_from=${found.to}&check_date_to=${found.to}&result=failed`);
  });
});
