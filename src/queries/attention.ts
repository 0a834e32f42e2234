import type { Knex } from 'knex';
import { sql } from '../db/knex';
import type { AttentionSettings } from '../config';
import { applyScope, type Scope } from '../filters/scope';
import { held as holding } from './sql-fragments';
import { daysBefore, endOfDay, exchangesBetween } from './kept-counts';

// "Needs attention": each rule once, as SQL, for the admin page, its CSV, the home page's counts and a
// rider's report. Every rule is judged as of the end of one day (`asOf`, YYYY-MM-DD, in the session's
// time zone), within the supervisor's 3PL, and for one rider when `riderId` is given.

export interface AttentionQuery {
  /** YYYY-MM-DD; null: today in the session's time zone. */
  asOf: string | null;
  settings: AttentionSettings;
  scope: Scope;
  /** Only these riders (a report's). */
  riderIds?: readonly string[];
}

export type RuleName = 'failing-checks' | 'overdue-items' | 'losses' | 'unchecked';

/** The as-of day, and its end (`asOf + 1 day` at midnight, exclusive). */
const AS_OF = 'coalesce(?::date, current_date)';
const UNTIL = `(${AS_OF} + 1)::timestamptz`;
const day = (expression: string) => `to_char(${expression}, 'YYYY-MM-DD')`;

/** Assignment `a` was held at the end of the as-of day. */
const heldAtEnd = (q: AttentionQuery): [string, Array<string | null>] => [
  `a.assigned_at < ${UNTIL} AND ${holding.heldAt(UNTIL)}`,
  [q.asOf, q.asOf],
];

/** Riders (alias r) of the scope, only some when asked. */
function riders(builder: Knex.QueryBuilder, q: AttentionQuery) {
  applyScope(builder, q.scope);
  if (q.riderIds) builder.whereIn('r.id', q.riderIds);
  return builder;
}

// The rules read the data kept by triggers (migration 008): each is a range look-up in a GiST index
// whose cost follows the rows listed, not the fleet. The range expressions are written as the indexes
// are, so the planner matches them.
const GAP = `tstzrange(g.from_at, g.until_at, '(]')`;

/** The riders (and the gap between checks that holds the end of the day) of failingChecks. */
function failingCore(q: AttentionQuery) {
  return riders(
    sql('kept_check_gaps as g')
      .join('riders as r', 'r.id', 'g.rider_id')
      // The gap that holds the end of the day opens at the rider's last check before it, a failed one
      // ending at least the threshold of failures in a row. (streak > 0 lets the partial index serve.)
      .whereRaw(`g.streak > 0 AND g.streak >= ? AND ${GAP} @> ${UNTIL}`, [q.settings.failedChecks, q.asOf]),
    q,
  );
}

/**
 * Riders whose last `failedChecks` patrol checks (up to the as-of day) each failed a validation,
 * ID, plate or sticker: newest failure first, with when the failures in a row began and what the
 * newest check failed.
 */
export function failingChecks(q: AttentionQuery) {
  return failingCore(q)
    .join('companies as c', 'c.id', 'r.company_id')
    .join('patrol_checks as pc', 'pc.id', 'g.check_id')
    .select(
      'r.id as rider_id',
      'r.name as rider_name',
      'c.name as company',
      sql.raw(`${day('g.from_at')} AS last_check`),
      sql.raw(`${day('g.streak_start')} AS failing_since`),
      sql.raw(
        `concat_ws(', ', CASE WHEN NOT pc.id_valid THEN 'ID' END, CASE WHEN NOT pc.plate_valid THEN 'plate' END, CASE WHEN NOT pc.sticker_valid THEN 'sticker' END) AS last_failed`,
      ),
      'pc.id as last_check_id',
    )
    .orderByRaw('g.from_at DESC, r.id');
}

/**
 * Items (kept exchange day k, rider r) of overdueItems. The exchange days are kept in the zone of
 * rider_list_zone, which the start aligns with TIME_ZONE (or says what to run; src/db/bootstrap.ts).
 */
function overdueCore(q: AttentionQuery) {
  // Past the exchange day before the day began, and held at its end, read in the order of the index.
  return riders(
    sql('kept_assignment_days as k')
      .join('riders as r', 'r.id', 'k.rider_id')
      .whereRaw('(k.deleted_at IS NULL OR k.deleted_at > k.eligible_at)')
      .whereRaw(`k.eligible_at < ${AS_OF}::timestamptz`, [q.asOf])
      .whereRaw(`(k.deleted_at IS NULL OR k.deleted_at >= ${UNTIL})`, [q.asOf]),
    q,
  );
}

/** Items held at the end of the as-of day whose exchange day (assigned + the product's days) is before it. */
export function overdueItems(q: AttentionQuery) {
  return overdueCore(q)
    .join('assignments as a', 'a.id', 'k.assignment_id')
    .join('products as p', 'p.id', 'a.product_id')
    .join('product_variations as v', 'v.id', 'a.variation_id')
    .join('companies as c', 'c.id', 'r.company_id')
    .select(
      'r.id as rider_id',
      'r.name as rider_name',
      'c.name as company',
      'p.name as product_name',
      'v.name as variation_name',
      sql.raw(`${day('a.assigned_at')} AS assigned_on`),
      sql.raw(`${day('k.eligible_at')} AS eligible_on`),
      sql.raw(`(${AS_OF} - k.eligible_at::date) AS days_past`, [q.asOf]),
    )
    .orderBy(['k.eligible_at', 'k.assignment_id']);
}

/**
 * Per 3PL with Lost or Accident exchanges in the last `lossDays` days: how many, against how many the
 * 3PL usually has in as many days (its rate over the `baselineDays` before them), most above first.
 */
export function losses(q: AttentionQuery) {
  const { lossDays, baselineDays } = q.settings;
  const until = endOfDay(q.asOf);
  const recentFrom = daysBefore(until, lossDays);
  const types = ['Lost', 'Accident'];
  const recent = exchangesBetween(recentFrom, until, q.scope, types).as('x');
  const before = exchangesBetween(daysBefore(until, lossDays + baselineDays), recentFrom, q.scope, types).as('y');
  const counted = sql
    .from(
      sql
        .unionAll(
          [
            sql.from(recent).select('x.company_id', sql.raw('x.exchanges AS recent'), sql.raw('0 AS before')),
            sql.from(before).select('y.company_id', sql.raw('0'), 'y.exchanges'),
          ],
          true,
        )
        .as('u'),
    )
    .groupBy('u.company_id')
    .select('u.company_id', sql.raw('sum(u.recent)::int AS recent'), sql.raw('sum(u.before)::int AS before'));
  return sql
    .from(counted.as('k'))
    .join('companies as c', 'c.id', 'k.company_id')
    .where('k.recent', '>', 0)
    .select(
      'c.id as company_id',
      'c.name as company',
      'k.recent',
      sql.raw('round(k.before * ?::numeric / ?, 1)::float8 AS usual', [lossDays, baselineDays]),
      sql.raw('(k.recent > k.before * ?::numeric / ?) AS above_usual', [lossDays, baselineDays]),
    )
    .orderByRaw('k.recent - k.before * ?::numeric / ? DESC, c.name', [lossDays, baselineDays]);
}

/** Riders' own Lost and Accident exchanges of the last `lossDays` days (their reports' open points). */
export function riderLosses(q: AttentionQuery) {
  return riders(
    sql('product_exchanges as e')
      .join('assignments as a', 'a.id', 'e.old_assignment_id')
      .join('products as p', 'p.id', 'a.product_id')
      .join('product_variations as v', 'v.id', 'a.variation_id')
      .join('riders as r', 'r.id', 'a.rider_id')
      .whereIn('e.replacement_type', ['Lost', 'Accident'])
      .whereRaw(`e.exchanged_at < ${UNTIL} AND e.exchanged_at >= (${UNTIL} - ? * interval '1 day')`, [q.asOf, q.asOf, q.settings.lossDays])
      .select(
        'r.id as rider_id',
        'e.replacement_type',
        'p.name as product_name',
        'v.name as variation_name',
        sql.raw(`${day('e.exchanged_at')} AS exchanged_on`),
      )
      .orderBy([{ column: 'e.exchanged_at' }, { column: 'e.id' }]),
    q,
  );
}

/** Riders (and the gap between checks that covers the window) of unchecked. */
function uncheckedCore(q: AttentionQuery) {
  // No check in the window: the gap from the last check before it (or from none) to the next one (or
  // none) covers it whole. Those riders are read first, from the GiST index (MATERIALIZED keeps the
  // planner from walking every rider instead); then whether each held equipment then, one index probe
  // per rider that stops at the first item (a LATERAL with LIMIT, not a semi-join hashed over every
  // assignment), in the order of the list, so a page or a capped count stops early.
  const gaps = riders(
    sql('kept_check_gaps as g')
      .join('riders as r', 'r.id', 'g.rider_id')
      .whereRaw(holding.riderWithAny)
      .whereRaw(`${GAP} @> tstzrange(${UNTIL} - ? * interval '1 day', ${UNTIL}, '[]')`, [q.asOf, q.settings.uncheckedDays, q.asOf])
      .select('g.rider_id', 'g.check_id', 'g.from_at', 'r.name', 'r.company_id'),
    q,
  );
  const heldThen = heldBy(q, 'g.rider_id').select(sql.raw('1')).limit(1);
  return sql
    .withMaterialized('g', gaps)
    .from('g')
    .joinRaw('CROSS JOIN LATERAL (?) AS h', [heldThen as unknown as Knex.Raw]);
}

/** Assignments of the rider (r.id, or another column) held at the end of the as-of day. */
function heldBy(q: AttentionQuery, rider = 'r.id') {
  return sql('assignments as a')
    .whereRaw(`a.rider_id = ${rider}`)
    .whereRaw(...heldAtEnd(q));
}

/** Riders holding equipment at the end of the as-of day with no patrol check in the `uncheckedDays` before it. */
export function unchecked(q: AttentionQuery) {
  return uncheckedCore(q)
    .join('riders as r', 'r.id', 'g.rider_id')
    .join('companies as c', 'c.id', 'g.company_id')
    .select(
      'g.rider_id',
      'g.name as rider_name',
      'c.name as company',
      sql.raw('(?)::int AS held', [heldBy(q).count()]),
      sql.raw(`CASE WHEN g.from_at > '-infinity' THEN ${day('g.from_at')} END AS last_check`),
      sql.raw(`CASE WHEN g.from_at > '-infinity' THEN g.check_id END AS last_check_id`),
    )
    .orderByRaw('g.from_at, g.rider_id');
}

export const rules: Record<RuleName, (q: AttentionQuery) => Knex.QueryBuilder> = {
  'failing-checks': failingChecks,
  'overdue-items': overdueItems,
  losses,
  unchecked,
};

/**
 * Rule counts stop at this many: past it a page says "more than 10,000", and the count costs the same
 * at any size of fleet (the rows are still all listed, paged and in the CSV).
 */
export const COUNT_CAP = 10_000;

/** `{ total }`: how many rows `rows` has, up to COUNT_CAP + 1. */
const capped = (rows: Knex.QueryBuilder) => sql.from(rows.limit(COUNT_CAP + 1).as('x')).count({ total: '*' });

/** How many rows a rule has, up to COUNT_CAP + 1 (for losses: 3PLs above their usual rate), without the rows' columns. */
export function ruleCount(name: RuleName, q: AttentionQuery) {
  switch (name) {
    case 'failing-checks':
      return capped(failingCore(q).select('g.rider_id'));
    case 'overdue-items': {
      return capped(overdueCore(q).select('k.assignment_id').orderBy(['k.eligible_at', 'k.assignment_id']));
    }
    case 'losses':
      return sql.from(losses(q).clearOrder().as('x')).where('x.above_usual', true).count({ total: '*' });
    case 'unchecked':
      return capped(uncheckedCore(q).select('g.rider_id'));
  }
}
