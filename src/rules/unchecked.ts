import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { timeKey } from '../queries/keyset';
import { dayText, held as holding } from '../wire/sql-fragments';
import { lastCheckHref, riderColumns } from './columns';
import { defineRule, type AttentionQuery } from './define';
import { earlierNote, gapRiders, gapsAtEnd, heldAtEnd, UNTIL, unhandled, riderCells } from './sql';

const NAME = 'unchecked';

/**
 * Riders (g: the gap between checks that covers the window; r; c); no columns. The gaps that cover
 * the window are read as gapsAtEnd reads them, in the order of the last check. Then whether the rider
 * held equipment at the end of the day: one index probe per rider that stops at the first item (a
 * LATERAL with LIMIT, not a semi-join hashed over every assignment), in the list's order, so a page or
 * a capped count stops early. Over `from`: gapRiders, or for a page's keys (RuleList.bare) the gaps and
 * their riders without 3PLs (the riders' item counts are read from their partial indexes alone).
 */
function core(q: AttentionQuery, from = gapRiders) {
  // No check in the window: the gap holding its end opened before it began.
  const builder = from(q, (o) => o.whereRaw(`o.from_at < ${UNTIL} - ? * interval '1 day'`, [q.asOf, q.settings.uncheckedDays]));
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
  return unhandled(builder, q, NAME, 'g.rider_id', 'g.from_at');
}

function columns(builder: Knex.QueryBuilder, q: AttentionQuery) {
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
    ...riderCells('g.rider_id'),
    sql.raw('? AS held', [heldCount]),
    sql.raw(`CASE WHEN g.from_at > '-infinity' THEN ${dayText('g.from_at')} END AS last_check`),
    sql.raw(`CASE WHEN g.from_at > '-infinity' THEN g.check_id END AS last_check_id`),
  );
}

/** Riders holding equipment at the end of the as-of day with no patrol check in the `uncheckedDays` before it. */
export default defineRule({
  name: NAME,
  subject: 'rider',
  title: 'Riders not checked lately',
  means: (s) => `Riders holding equipment with no patrol check in the last ${s.uncheckedDays} days, never checked first.`,
  counted: 'riders holding equipment and not checked lately',
  noun: ['rider', 'riders'],
  columns: [
    ...riderColumns(false),
    { key: 'held', label: 'Items held', numeric: true },
    {
      key: 'last_check',
      label: 'Last check',
      nowrap: true,
      text: (row) => (row.last_check ? String(row.last_check) : 'Never'),
      csvSql: `coalesce(nullif(t.last_check::text, ''), 'Never')`,
      href: lastCheckHref,
      sort: 'last_check',
    },
  ],
  list: {
    core,
    bare: (q) => core(q, (q, condition) => sql.from(gapsAtEnd(q, condition)).join('riders as r', 'r.id', 'g.rider_id')),
    columns: (builder, q) => earlierNote(columns(builder, q), NAME, 'g.rider_id'),
    sorts: { last_check: { keys: [timeKey('g.from_at')] } },
    defaultSort: { sort: 'last_check', dir: 'asc' },
    tieBreak: 'g.rider_id',
    subject: 'g.rider_id',
    // None: in the index's order a past day's count first reads the riders never checked by then,
    // most of whom held nothing yet, so it reads several rows per row counted; the rider order the
    // planner picks reads fewer, as many at any fleet size (measured both ways: docs/runs/ADMIN-BENCHMARKS.md).
  },
  evidence: () => sql.raw('g.from_at'),
  openPoint: {
    rows: (q) => columns(core(q), q).orderByRaw('g.from_at, g.rider_id'),
    sentence: (row) => [`Holds equipment and ${row.last_check ? `was last checked on ${row.last_check}` : 'has never been checked'}.`],
  },
});
