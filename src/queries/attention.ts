import type { Knex } from 'knex';
import { sql } from '../db/knex';
import type { AttentionSettings } from '../config';
import { applyScope, type Scope } from '../filters/scope';
import { dayText, held as holding } from '../wire/sql-fragments';
import { daysBefore, endOfDay, exchangesBetween } from './kept-counts';
import { cappedCount, timeKey, type Dir, type ListSort } from './keyset';

// "Needs attention": each rule once, as SQL, for the admin page, its CSV, the home page's counts and a
// rider's report. Every rule is judged as of the end of one day (`asOf`, YYYY-MM-DD, in the session's
// time zone), within the supervisor's 3PL, and for one rider when `riderId` is given.

export interface AttentionQuery {
  /**
   * YYYY-MM-DD; null: today in the session's time zone, read as now: the gaps between checks still
   * open and the items riders hold now (their kept counts), each from an index in the list's order.
   * A day given, even today's, is judged at its end from the history.
   */
  asOf: string | null;
  settings: AttentionSettings;
  scope: Scope;
  /** Only these riders (a report's). */
  riderIds?: readonly string[];
  /**
   * Leave out the rows supervisors marked handled (the work queue, its counts and CSV); a report and
   * the rider page list every open point, handled or not.
   */
  hideHandled?: boolean;
}

export type RuleName = 'failing-checks' | 'overdue-items' | 'losses' | 'unchecked';
/** The rules whose rows are riders (or their items): listed, paged and handled per rider. */
export type RiderRuleName = Exclude<RuleName, 'losses'>;

/** The as-of day, and its end (`asOf + 1 day` at midnight, exclusive). */
const AS_OF = 'coalesce(?::date, current_date)';
const UNTIL = `(${AS_OF} + 1)::timestamptz`;

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
 * Leaves out a row handled by a supervisor (access.attention_handled, migration 014): one handling
 * of this rule and subject, not undone, recorded by the end of the as-of day, whose evidence is at
 * least as new as the row's and whose "until" day has not passed. One index probe per row.
 */
function unhandled(
  builder: Knex.QueryBuilder,
  q: AttentionQuery,
  rule: RuleName,
  subject: string,
  evidence: string,
  evidenceBindings: Array<string | null> = [],
) {
  if (!q.hideHandled) return builder;
  return builder.whereRaw(
    `NOT EXISTS (SELECT 1 FROM access.attention_handled h WHERE h.rule = ? AND h.subject_id = ${subject} AND h.undone_at IS NULL
       AND h.evidence_at >= ${evidence} AND (h.until IS NULL OR h.until >= ${AS_OF}) AND h.handled_at < ${UNTIL})`,
    [rule, ...evidenceBindings, q.asOf, q.asOf],
  );
}

/**
 * The newest handling of this rule and subject that is not undone (alias hn: note, by, on): on a row
 * still listed, the note of an earlier handling that new evidence or its "until" day brought back.
 */
function earlierNote(builder: Knex.QueryBuilder, rule: RuleName, subject: string) {
  return builder
    .joinRaw(
      `LEFT JOIN LATERAL (SELECT h.note, s.username, h.handled_at, h.until FROM access.attention_handled h
         JOIN access.supervisors s ON s.id = h.handled_by
        WHERE h.rule = ? AND h.subject_id = ${subject} AND h.undone_at IS NULL ORDER BY h.id DESC LIMIT 1) AS hn ON true`,
      [rule],
    )
    .select(
      sql.raw('hn.note AS earlier_note'),
      sql.raw('hn.username AS earlier_by'),
      sql.raw(`${dayText('hn.handled_at')} AS earlier_on`),
      sql.raw(`${dayText('hn.until')} AS earlier_until`),
    );
}

// The rules read the data kept by triggers (migration 008): each is a range look-up in an index
// whose cost follows the rows listed, not the fleet. The range expressions are written as the indexes
// are, so the planner matches them.

/**
 * The gaps between checks that hold the end of the as-of day and meet `condition` (alias o), as g:
 * today, each rider's open gap (no check since); a past day, the gaps not yet closed by its end. Each
 * is read from an index in the order of the check that opens the gap (migration 014), so a page stops
 * after its rows and a count at its cap.
 */
function gapsAtEnd(q: AttentionQuery, condition: (o: Knex.QueryBuilder) => Knex.QueryBuilder) {
  const gaps = sql('kept_check_gaps as o').select('o.rider_id', 'o.check_id', 'o.from_at', 'o.streak', 'o.streak_start');
  if (q.asOf === null) gaps.whereNull('o.until_at');
  else gaps.whereRaw(`(o.until_at IS NULL OR o.until_at >= ${UNTIL})`, [q.asOf]);
  return condition(gaps).as('g');
}

/** The riders (g: the gap between checks that holds the end of the day; r; c) of failingChecks; no columns. */
function failingCore(q: AttentionQuery) {
  // The gap that holds the end of the day opens at the rider's last check before it, a failed one
  // ending at least the threshold of failures in a row. (streak > 0 lets the partial index serve.)
  const gaps = gapsAtEnd(q, (o) =>
    o.whereRaw(`o.streak > 0 AND o.streak >= ? AND o.from_at < ${UNTIL}`, [q.settings.failedChecks, q.asOf]),
  );
  const builder = riders(sql.from(gaps).join('riders as r', 'r.id', 'g.rider_id').join('companies as c', 'c.id', 'r.company_id'), q);
  return unhandled(builder, q, 'failing-checks', 'g.rider_id', 'g.from_at');
}

/** failingChecks' columns over its core's rows. */
function failingColumns(builder: Knex.QueryBuilder) {
  return builder
    .join('patrol_checks as pc', 'pc.id', 'g.check_id')
    .select(
      'g.rider_id',
      'r.name as rider_name',
      'c.name as company',
      sql.raw(`${dayText('g.from_at')} AS last_check`),
      sql.raw(`${dayText('g.streak_start')} AS failing_since`),
      sql.raw(
        `concat_ws(', ', CASE WHEN NOT pc.id_valid THEN 'ID' END, CASE WHEN NOT pc.plate_valid THEN 'plate' END, CASE WHEN NOT pc.sticker_valid THEN 'sticker' END) AS last_failed`,
      ),
      'pc.id as last_check_id',
    );
}

/**
 * Riders whose last `failedChecks` patrol checks (up to the as-of day) each failed a validation,
 * ID, plate or sticker: newest failure first, with when the failures in a row began and what the
 * newest check failed.
 */
export function failingChecks(q: AttentionQuery) {
  return failingColumns(failingCore(q)).orderByRaw('g.from_at DESC, g.rider_id');
}

/**
 * Items (kept exchange day k, rider r) of overdueItems. The exchange days are kept in the zone of
 * rider_list_zone, which the start aligns with TIME_ZONE (or says what to run; src/db/bootstrap.ts).
 */
function overdueCore(q: AttentionQuery) {
  // Past the exchange day before the day began, and held at its end, read in the order of the index.
  const builder = riders(
    sql('kept_assignment_days as k')
      .join('riders as r', 'r.id', 'k.rider_id')
      .join('companies as c', 'c.id', 'r.company_id')
      .whereRaw('(k.deleted_at IS NULL OR k.deleted_at > k.eligible_at)')
      .whereRaw(`k.eligible_at < ${AS_OF}::timestamptz`, [q.asOf])
      .whereRaw(`(k.deleted_at IS NULL OR k.deleted_at >= ${UNTIL})`, [q.asOf]),
    q,
  );
  return unhandled(builder, q, 'overdue-items', 'k.rider_id', 'k.eligible_at');
}

function overdueColumns(builder: Knex.QueryBuilder, q: AttentionQuery) {
  return builder
    .join('assignments as a', 'a.id', 'k.assignment_id')
    .join('products as p', 'p.id', 'a.product_id')
    .join('product_variations as v', 'v.id', 'a.variation_id')
    .select(
      'k.rider_id',
      'r.name as rider_name',
      'c.name as company',
      'k.assignment_id',
      'p.name as product_name',
      'v.name as variation_name',
      sql.raw(`${dayText('a.assigned_at')} AS assigned_on`),
      sql.raw(`${dayText('k.eligible_at')} AS eligible_on`),
      sql.raw(`(${AS_OF} - k.eligible_at::date) AS days_past`, [q.asOf]),
    );
}

/** Items held at the end of the as-of day whose exchange day (assigned + the product's days) is before it. */
export function overdueItems(q: AttentionQuery) {
  return overdueColumns(overdueCore(q), q).orderBy(['k.eligible_at', 'k.assignment_id']);
}

/** A 3PL's newest quarter of an hour with a Lost or Accident exchange before the end of the day (k.company_id). */
const lossEvidence = (company: string) => `(SELECT max(x.bucket) FROM kept_exchange_quarters x WHERE x.company_id = ${company}
    AND x.replacement_type IN ('Lost', 'Accident') AND x.bucket < ${UNTIL})`;

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
  const builder = sql
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
  if (!q.hideHandled) return builder;
  return earlierNote(unhandled(builder, q, 'losses', 'k.company_id', lossEvidence('k.company_id'), [q.asOf]), 'losses', 'k.company_id');
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
        sql.raw(`${dayText('e.exchanged_at')} AS exchanged_on`),
      )
      .orderBy([{ column: 'e.exchanged_at' }, { column: 'e.id' }]),
    q,
  );
}

/**
 * Riders (g: the gap between checks that covers the window; r; c) of unchecked; no columns. The gaps
 * that cover the window are read as gapsAtEnd reads them, in the order of the last check. Then whether the
 * rider held equipment at the end of the day: one index probe per rider that stops at the first item
 * (a LATERAL with LIMIT, not a semi-join hashed over every assignment), in the list's order, so a page
 * or a capped count stops early.
 */
function uncheckedCore(q: AttentionQuery) {
  // No check in the window: the gap holding its end opened before it began.
  const gaps = gapsAtEnd(q, (o) => o.whereRaw(`o.from_at < ${UNTIL} - ? * interval '1 day'`, [q.asOf, q.settings.uncheckedDays]));
  const builder = riders(sql.from(gaps).join('riders as r', 'r.id', 'g.rider_id').join('companies as c', 'c.id', 'r.company_id'), q);
  if (q.asOf === null) {
    // Today: holding equipment now, as the item counts kept on each rider say (migration 002).
    builder.whereRaw(holding.riderHolding);
  } else {
    const heldThen = sql('assignments as a')
      .whereRaw('a.rider_id = g.rider_id')
      .whereRaw(...heldAtEnd(q))
      .select(sql.raw('1'))
      .limit(1);
    builder.whereRaw(holding.riderWithAny).joinRaw('CROSS JOIN LATERAL (?) AS h', [heldThen as unknown as Knex.Raw]);
  }
  return unhandled(builder, q, 'unchecked', 'g.rider_id', 'g.from_at');
}

function uncheckedColumns(builder: Knex.QueryBuilder, q: AttentionQuery) {
  const heldCount =
    q.asOf === null
      ? sql.raw('r.active_items')
      : sql.raw('(?)::int', [
          sql('assignments as a')
            .whereRaw('a.rider_id = g.rider_id')
            .whereRaw(...heldAtEnd(q))
            .count(),
        ]);
  return builder.select(
    'g.rider_id',
    'r.name as rider_name',
    'c.name as company',
    sql.raw('? AS held', [heldCount]),
    sql.raw(`CASE WHEN g.from_at > '-infinity' THEN ${dayText('g.from_at')} END AS last_check`),
    sql.raw(`CASE WHEN g.from_at > '-infinity' THEN g.check_id END AS last_check_id`),
  );
}

/** Riders holding equipment at the end of the as-of day with no patrol check in the `uncheckedDays` before it. */
export function unchecked(q: AttentionQuery) {
  return uncheckedColumns(uncheckedCore(q), q).orderByRaw('g.from_at, g.rider_id');
}

/**
 * A rule over riders as a list (src/admin/list-page.ts reads it like the other lists): its rows
 * without columns, the columns over them, the sorts it offers, and the row's id. `core` keeps only
 * rows in the scope, of the riders asked for, and (with hideHandled) not handled.
 */
export interface RuleList {
  core: (q: AttentionQuery) => Knex.QueryBuilder;
  columns: (builder: Knex.QueryBuilder, q: AttentionQuery) => Knex.QueryBuilder;
  sorts: Readonly<Record<string, ListSort>>;
  defaultSort: { sort: string; dir: Dir };
  /** The row's id, and the subject a handling covers. */
  tieBreak: string;
  subject: string;
  /**
   * The order of the rule's index (migration 014) that a capped count reads its rows in, so that it
   * stops at its cap (docs/BENCHMARKS.md, "Rule counts in the index's order"); none where the planner's
   * own order reads fewer rows.
   */
  countOrder?: string;
}

export const ruleLists: Record<RiderRuleName, RuleList> = {
  'failing-checks': {
    core: failingCore,
    columns: (builder) => earlierNote(failingColumns(builder), 'failing-checks', 'g.rider_id'),
    sorts: {
      last_check: { keys: [timeKey('g.from_at')] },
      failing_since: { keys: [timeKey('g.streak_start')] },
      rider_id: { keys: [] },
    },
    defaultSort: { sort: 'last_check', dir: 'desc' },
    tieBreak: 'g.rider_id',
    subject: 'g.rider_id',
    countOrder: 'g.from_at DESC, g.rider_id DESC',
  },
  'overdue-items': {
    core: overdueCore,
    columns: (builder, q) => earlierNote(overdueColumns(builder, q), 'overdue-items', 'k.rider_id'),
    sorts: { exchange_day: { keys: [timeKey('k.eligible_at')] } },
    defaultSort: { sort: 'exchange_day', dir: 'asc' },
    tieBreak: 'k.assignment_id',
    subject: 'k.rider_id',
    countOrder: 'k.eligible_at, k.assignment_id',
  },
  unchecked: {
    core: uncheckedCore,
    columns: (builder, q) => earlierNote(uncheckedColumns(builder, q), 'unchecked', 'g.rider_id'),
    sorts: { last_check: { keys: [timeKey('g.from_at')] } },
    defaultSort: { sort: 'last_check', dir: 'asc' },
    tieBreak: 'g.rider_id',
    subject: 'g.rider_id',
    // None: in the index's order a past day's count first reads the riders never checked by then,
    // most of whom held nothing yet, so it reads several rows per row counted; the rider order the
    // planner picks reads fewer, as many at any fleet size (measured both ways: docs/BENCHMARKS.md).
  },
};

/**
 * The newest evidence of a rule for one subject at the end of the as-of day (what a handling recorded
 * now covers), or no row when the subject is not listed: the failing rider's last check, the latest
 * exchange day of the rider's overdue items, the last check of a rider not checked since; for a 3PL's
 * losses, its newest quarter of an hour with a Lost or Accident exchange.
 */
export function ruleEvidence(rule: RuleName, subjectId: string, q: Omit<AttentionQuery, 'riderIds' | 'hideHandled'>) {
  if (rule === 'losses') return sql.select(sql.raw(`${lossEvidence('?::bigint')} AS evidence_at`, [subjectId, q.asOf]));
  const evidence = rule === 'overdue-items' ? 'k.eligible_at' : 'g.from_at';
  return ruleLists[rule]
    .core({ ...q, riderIds: [subjectId] })
    .select(sql.raw(`max(${evidence}) AS evidence_at`))
    .havingRaw('count(*) > 0');
}

export const rules: Record<RuleName, (q: AttentionQuery) => Knex.QueryBuilder> = {
  'failing-checks': failingChecks,
  'overdue-items': overdueItems,
  losses,
  unchecked,
};

/**
 * Rule counts stop at this many: past it a page says "more than 1,000", and a count costs the same at
 * any size of fleet (a count checks each row: whether it is handled, whether the rider held equipment
 * then, so an uncapped count grows with the fleet: docs/BENCHMARKS.md). The rows are still all listed, paged and in
 * the CSV.
 */
export const COUNT_CAP = 1_000;

/** How many rows a rule has, up to COUNT_CAP + 1 (for losses: 3PLs above their usual rate), without the rows' columns. */
export function ruleCount(name: RuleName, q: AttentionQuery) {
  if (name === 'losses') return sql.from(losses(q).clearOrder().as('x')).where('x.above_usual', true).count({ total: '*' });
  const list = ruleLists[name];
  return cappedCount(list.core(q), COUNT_CAP, list.countOrder);
}
