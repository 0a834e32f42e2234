import type { Knex } from 'knex';
import { sql } from '../db/knex';
import type { AttentionSettings } from '../config';
import { applyScope, type Scope } from '../filters/scope';
import { held as holding } from './sql-fragments';

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

/**
 * Riders whose last `failedChecks` patrol checks (up to the as-of day) each failed a validation,
 * ID, plate or sticker: newest failure first, with what the newest check failed.
 */
export function failingChecks(q: AttentionQuery) {
  // Each rider's newest checks, read from the end of patrol_checks_rider_latest_idx (migration 007).
  const latest = sql('patrol_checks as pc')
    .whereRaw('pc.rider_id = r.id')
    .whereRaw(`pc.checked_at < ${UNTIL}`, [q.asOf])
    .orderBy([
      { column: 'pc.checked_at', order: 'desc' },
      { column: 'pc.id', order: 'desc' },
    ])
    .limit(q.settings.failedChecks)
    .select(
      'pc.checked_at',
      sql.raw('NOT (pc.id_valid AND pc.plate_valid AND pc.sticker_valid) AS failed'),
      sql.raw(
        `concat_ws(', ', CASE WHEN NOT pc.id_valid THEN 'ID' END, CASE WHEN NOT pc.plate_valid THEN 'plate' END, CASE WHEN NOT pc.sticker_valid THEN 'sticker' END) AS what`,
      ),
    );
  const summary = sql
    .from(latest.as('l'))
    .select(
      sql.raw('count(*) AS n'),
      sql.raw('bool_and(l.failed) AS all_failed'),
      sql.raw('max(l.checked_at) AS last_at'),
      sql.raw('min(l.checked_at) AS first_at'),
      sql.raw('(array_agg(l.what ORDER BY l.checked_at DESC))[1] AS what'),
    );
  return riders(
    sql('riders as r')
      .join('companies as c', 'c.id', 'r.company_id')
      .joinRaw('CROSS JOIN LATERAL (?) AS k', [summary as unknown as Knex.Raw]) // a builder, bound as a subquery
      .where('k.n', q.settings.failedChecks)
      .where('k.all_failed', true)
      .select(
        'r.id as rider_id',
        'r.name as rider_name',
        'c.name as company',
        sql.raw(`${day('k.last_at')} AS last_check`),
        sql.raw(`${day('k.first_at')} AS failing_since`),
        sql.raw('k.what AS last_failed'),
      )
      .orderByRaw('k.last_at DESC, r.id'),
    q,
  );
}

/** Items held at the end of the as-of day whose exchange day (assigned + the product's days) is before it. */
export function overdueItems(q: AttentionQuery) {
  const eligible = `(a.assigned_at + p.exchange_after_days * interval '1 day')`;
  return riders(
    sql('assignments as a')
      .join('products as p', 'p.id', 'a.product_id')
      .join('product_variations as v', 'v.id', 'a.variation_id')
      .join('riders as r', 'r.id', 'a.rider_id')
      .join('companies as c', 'c.id', 'r.company_id')
      .whereRaw(...heldAtEnd(q))
      .whereRaw(`${eligible}::date < ${AS_OF}`, [q.asOf])
      .select(
        'r.id as rider_id',
        'r.name as rider_name',
        'c.name as company',
        'p.name as product_name',
        'v.name as variation_name',
        sql.raw(`${day('a.assigned_at')} AS assigned_on`),
        sql.raw(`${day(eligible)} AS eligible_on`),
        sql.raw(`(${AS_OF} - ${eligible}::date) AS days_past`, [q.asOf]),
      )
      .orderByRaw(`${eligible}, a.id`),
    q,
  );
}

/**
 * Per 3PL with Lost or Accident exchanges in the last `lossDays` days: how many, against how many the
 * 3PL usually has in as many days (its rate over the `baselineDays` before them), most above first.
 */
export function losses(q: AttentionQuery) {
  const { lossDays, baselineDays } = q.settings;
  const since = `(${UNTIL} - ? * interval '1 day')`;
  const counted = riders(
    sql('product_exchanges as e')
      .join('assignments as a', 'a.id', 'e.old_assignment_id')
      .join('riders as r', 'r.id', 'a.rider_id')
      .whereIn('e.replacement_type', ['Lost', 'Accident'])
      .whereRaw(`e.exchanged_at < ${UNTIL} AND e.exchanged_at >= ${since}`, [q.asOf, q.asOf, lossDays + baselineDays])
      .groupBy('r.company_id')
      .select(
        'r.company_id',
        sql.raw(`count(*) FILTER (WHERE e.exchanged_at >= ${since})::int AS recent`, [q.asOf, lossDays]),
        sql.raw(`count(*) FILTER (WHERE e.exchanged_at < ${since})::int AS before`, [q.asOf, lossDays]),
      ),
    q,
  );
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

/** Riders holding equipment at the end of the as-of day with no patrol check in the `uncheckedDays` before it. */
export function unchecked(q: AttentionQuery) {
  const held = sql('assignments as a')
    .whereRaw('a.rider_id = r.id')
    .whereRaw(...heldAtEnd(q));
  const checks = () => sql('patrol_checks as pc').whereRaw('pc.rider_id = r.id').whereRaw(`pc.checked_at < ${UNTIL}`, [q.asOf]);
  // One index probe per rider for "checked lately" (patrol_checks_rider_latest_idx); the last check's
  // day and the items held are read only for the riders listed.
  const last = checks().max('pc.checked_at');
  return riders(
    sql('riders as r')
      .join('companies as c', 'c.id', 'r.company_id')
      .whereRaw(holding.riderWithAny)
      .whereNotExists(
        checks().whereRaw(`pc.checked_at >= (${UNTIL} - ? * interval '1 day')`, [q.asOf, q.settings.uncheckedDays]).select(sql.raw('1')),
      )
      .whereExists(held.clone().select(sql.raw('1')))
      .select(
        'r.id as rider_id',
        'r.name as rider_name',
        'c.name as company',
        sql.raw('(?)::int AS held', [held.clone().count()]),
        sql.raw(`${day('(?)')} AS last_check`, [last]),
      )
      .orderByRaw('(?) NULLS FIRST, r.id', [last.clone()]),
    q,
  );
}

export const rules: Record<RuleName, (q: AttentionQuery) => Knex.QueryBuilder> = {
  'failing-checks': failingChecks,
  'overdue-items': overdueItems,
  losses,
  unchecked,
};

/** How many rows a rule has (for losses: 3PLs above their usual rate). */
export function ruleCount(name: RuleName, q: AttentionQuery) {
  const rows = rules[name](q).clearOrder();
  return sql
    .from(rows.as('x'))
    .modify((b) => (name === 'losses' ? b.where('x.above_usual', true) : b))
    .count({ total: '*' });
}
