import express from 'express';
import pg from 'pg';
import request from 'supertest';
import { createAdminRouter } from '../src/admin/router';
import { DEFAULT_ATTENTION, loadConfig } from '../src/config';
import type { Reader } from '../src/db/pool';
import { requestId } from '../src/http/request-id';
import { createReportsRouter } from '../src/reports/router';
import { useDatabase } from './support/databases';
import { one, tableRows, textOf } from './support/html';

// The rider's page says why "Needs attention" lists the rider: the open points of the printable report,
// and the exchange day of every item held, the ones past it marked. Both pages read today's points, so
// on the demo data (which ends on a fixed day) riders with each kind of point are found by SQL as of
// today; a Lost exchange of yesterday and a rider with nothing at all are added in a transaction that
// the pages read through and that is rolled back at the end.
let client: pg.Client;
let app: express.Express;
const riders: Record<'failing' | 'overdue' | 'unchecked' | 'loss' | 'none', string> = {} as never;

/** The transaction's one connection as a pool: the pages' statements take it in turn. */
function inTransaction(connection: pg.Client): Reader {
  let turn = Promise.resolve();
  return {
    acquire: () =>
      new Promise<pg.PoolClient>((resolve) => {
        turn = turn.then(
          () =>
            new Promise<void>((released) =>
              resolve(
                new Proxy(connection, {
                  get: (target, key) => {
                    if (key === 'release') return () => released();
                    const value = Reflect.get(target, key, target);
                    return typeof value === 'function' ? value.bind(target) : value;
                  },
                }) as pg.PoolClient,
              ),
            ),
        );
      }),
  };
}

const first = async (sql: string, params: unknown[] = []) => {
  const { rows } = await client.query(sql, params);
  if (!rows.length) throw new Error(`no row for ${sql}`);
  return String(rows[0].id);
};

beforeAll(async () => {
  // A connection of its own, named apart from the service's (test/api-streaming.test.ts counts those
  // that are not idle on this database), in the service's time zone.
  client = new pg.Client({
    connectionString: await useDatabase('demo'),
    application_name: 'test-rider-open-points',
    options: `-c TimeZone=${loadConfig({ NODE_ENV: 'test' }).timeZone}`,
  });
  await client.connect();
  await client.query('BEGIN');
  const { failedChecks, uncheckedDays } = DEFAULT_ATTENTION;
  // The last `failedChecks` checks each failed a validation.
  riders.failing = await first(
    `SELECT rider_id AS id FROM (
       SELECT rider_id, NOT (id_valid AND plate_valid AND sticker_valid) AS failed,
              row_number() OVER (PARTITION BY rider_id ORDER BY checked_at DESC, id DESC) AS n
         FROM patrol_checks) x
      WHERE n <= $1 GROUP BY rider_id HAVING count(*) = $1 AND bool_and(failed) ORDER BY rider_id LIMIT 1`,
    [failedChecks],
  );
  // Holds an item whose exchange day (assigned plus the product's period) is before today.
  riders.overdue = await first(
    `SELECT a.rider_id AS id FROM assignments a JOIN products p ON p.id = a.product_id
      WHERE a.deleted_at IS NULL AND (a.assigned_at + p.exchange_after_days * interval '1 day')::date < current_date
      ORDER BY a.rider_id DESC LIMIT 1`,
  );
  // Holds equipment, and no check in the last `uncheckedDays` days.
  riders.unchecked = await first(
    `SELECT r.id FROM riders r
      WHERE EXISTS (SELECT 1 FROM assignments a WHERE a.rider_id = r.id AND a.deleted_at IS NULL)
        AND NOT EXISTS (SELECT 1 FROM patrol_checks pc WHERE pc.rider_id = r.id AND pc.checked_at >= current_date + 1 - $1 * interval '1 day')
      ORDER BY r.id LIMIT 1`,
    [uncheckedDays],
  );
  // A rider lost an item yesterday: it was exchanged for a new one.
  riders.loss = await first(`SELECT min(r.id) AS id FROM riders r WHERE r.id NOT IN ($1, $2, $3)`, [
    riders.failing,
    riders.overdue,
    riders.unchecked,
  ]);
  await client.query(
    `WITH ids AS (SELECT max(id) AS id FROM assignments), item AS (SELECT product_id, id AS variation_id FROM product_variations ORDER BY id LIMIT 1)
     INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type, deleted_at)
     SELECT ids.id + n, $1, item.product_id, item.variation_id, now() - CASE n WHEN 1 THEN interval '20 days' ELSE interval '1 day' END,
            (SELECT min(id) FROM app_users), 0, CASE n WHEN 1 THEN 'assign' ELSE 'exchange' END,
            CASE n WHEN 1 THEN now() - interval '1 day' END
       FROM ids, item, generate_series(1, 2) AS n`,
    [riders.loss],
  );
  await client.query(
    `INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by)
     SELECT (SELECT coalesce(max(id), 0) + 1 FROM product_exchanges), max(id) - 1, max(id), now() - interval '1 day', 'Lost item', 'Lost',
            (SELECT min(id) FROM app_users)
       FROM assignments`,
  );
  // A rider who never held, lost or was checked for anything.
  riders.none = await first(
    `INSERT INTO riders (id, name, company_id, country_id)
     SELECT max(id) + 1, 'Nadia Nothing-Open', min(company_id), min(country_id) FROM riders RETURNING id`,
  );
  const pool = inTransaction(client);
  app = express()
    .use(requestId)
    .use('/admin', createReportsRouter({ pool, log: () => undefined, chromiumPath: null }))
    .use('/admin', createAdminRouter({ pool, log: () => undefined }));
});
afterAll(async () => {
  await client?.query('ROLLBACK');
  await client?.end();
});

/** The open points a page lists, as read. */
const pointsOf = (html: string) =>
  one(html, 'section.open-points')
    .querySelectorAll('li')
    .map((li) => textOf(li));
const riderPage = async (id: string) => (await request(app).get(`/admin/riders/${id}`).expect(200)).text;
const reportPage = async (id: string) => (await request(app).get(`/admin/riders/${id}/report`).expect(200)).text;

describe('the rider page’s open points', () => {
  it.each([
    [
      'failing checks',
      'failing',
      /^The last checks failed a validation, since \d{4}-\d{2}-\d{2}; the newest, on \d{4}-\d{2}-\d{2}, failed: /,
    ],
    ['an item past its exchange day', 'overdue', /^.+ \/ .+ is past its exchange day \(\d{4}-\d{2}-\d{2}, \d+ days? ago\)\.$/],
    ['no check lately', 'unchecked', /^Holds equipment and (was last checked on \d{4}-\d{2}-\d{2}|has never been checked)\.$/],
    ['a Lost exchange', 'loss', /^Lost exchange of .+ \/ .+ on \d{4}-\d{2}-\d{2}\.$/],
  ] as const)('lists the report’s points for a rider with %s', async (_kind, which, point) => {
    const id = riders[which];
    const [page, report] = await Promise.all([riderPage(id), reportPage(id)]);
    const points = pointsOf(page);
    expect(points).toEqual(pointsOf(report));
    expect(points.filter((text) => point.test(text))).not.toEqual([]);
  });

  it('says there are none for a rider with nothing open, as the report does', async () => {
    const [page, report] = await Promise.all([riderPage(riders.none), reportPage(riders.none)]);
    expect(pointsOf(page)).toEqual([]);
    expect(textOf(one(page, 'section.open-points p.empty'))).toBe('None.');
    expect(textOf(one(report, 'section.open-points p.empty'))).toBe('None.');
    expect(textOf(page)).toContain('This rider holds no equipment now.');
  });

  it('is not there for another 3PL’s supervisor, whose rider page is a 404', async () => {
    const { rows } = await client.query(
      'SELECT company_id::text AS id FROM riders WHERE id <> $1 AND company_id <> (SELECT company_id FROM riders WHERE id = $1) LIMIT 1',
      [riders.overdue],
    );
    const scoped = express()
      .use((_req, res, next) => {
        res.locals.supervisor = { id: '1', username: 'lead', companyId: rows[0].id };
        next();
      })
      .use('/admin', createAdminRouter({ pool: inTransaction(client), log: () => undefined }));
    await request(scoped).get(`/admin/riders/${riders.overdue}`).expect(404);
  });
});

describe('the exchange day of the equipment held now', () => {
  /** The held table's rows: item, exchange day cell, and the overdue badge's text if any. */
  function held(html: string) {
    const section = one(html, 'section[aria-labelledby="held-title"]');
    const badges = section.querySelectorAll('tbody tr').map((tr) => {
      const badge = tr.querySelector('td[data-label="Exchange day"] .badge');
      return badge ? textOf(badge) : undefined;
    });
    return tableRows(section).map((cells, i) => ({ item: cells[0], exchangeDay: cells[2], badge: badges[i] }));
  }

  /** The rider's held items newest first, with their exchange day and the days since, from the database. */
  async function expected(id: string) {
    const { rows } = await client.query(
      `SELECT p.name || ' / ' || v.name AS item, to_char(e.at, 'YYYY-MM-DD') AS day, current_date - e.at::date AS past
         FROM assignments a JOIN products p ON p.id = a.product_id JOIN product_variations v ON v.id = a.variation_id,
              LATERAL (SELECT a.assigned_at + p.exchange_after_days * interval '1 day' AS at) e
        WHERE a.rider_id = $1 AND a.deleted_at IS NULL ORDER BY a.assigned_at DESC, a.id DESC`,
      [id],
    );
    return rows.map((row) => ({
      item: row.item as string,
      exchangeDay: row.past > 0 ? `${row.day} ${row.past === 1 ? '1 day' : `${row.past} days`} past` : row.day,
      badge: row.past > 0 ? `${row.past === 1 ? '1 day' : `${row.past} days`} past` : undefined,
    }));
  }

  it('shows each item’s exchange day, and marks those past it with how many days', async () => {
    for (const id of [riders.overdue, riders.loss, riders.unchecked]) {
      const html = await riderPage(id);
      expect(one(html, 'section[aria-labelledby="held-title"] thead').text).toContain('Exchange day');
      expect(held(html)).toEqual(await expected(id));
    }
    // The item received yesterday for the lost one is not due for months: no mark.
    expect(held(await riderPage(riders.loss))[0]).toMatchObject({ badge: undefined });
  });

  it('marks the very items the open points list as past their exchange day', async () => {
    const html = await riderPage(riders.overdue);
    const marked = held(html)
      .filter((row) => row.badge)
      .map((row) => `${row.item} ${row.exchangeDay.replace(/ (\d+) days? past$/, ' $1')}`)
      .sort();
    const listed = pointsOf(html)
      .map((text) => /^(.+) is past its exchange day \((\d{4}-\d{2}-\d{2}), (\d+) days? ago\)\.$/.exec(text))
      .filter((match) => match !== null)
      .map((match) => `${match[1]} ${match[2]} ${match[3]}`)
      .sort();
    expect(marked.length).toBeGreaterThan(0);
    expect(marked).toEqual(listed);
  });
});
