import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { applyScope } from '../filters/scope';
import { dayText, held as holding } from '../wire/sql-fragments';
import type { AttentionQuery } from './define';

// What the rules' SQL shares. Every rule is judged as of the end of one day (`asOf`, YYYY-MM-DD, in
// the session's time zone), within the supervisor's 3PL, and for some riders when `riderIds` is given.
// The rules read the data kept from the writers' change log (migrations 008 and 018): each is a range
// look-up in an index whose cost follows the rows listed, not the fleet. The range expressions are
// written as the indexes are, so the planner matches them.

/** The as-of day, and its end (`asOf + 1 day` at midnight, exclusive); each binds q.asOf once. */
export const AS_OF = 'coalesce(?::date, current_date)';
export const UNTIL = `(${AS_OF} + 1)::timestamptz`;

/** Assignment `a` was held at the end of the as-of day. */
export const heldAtEnd = (q: AttentionQuery): [string, Array<string | null>] => [
  `a.assigned_at < ${UNTIL} AND ${holding.heldAt(UNTIL)}`,
  [q.asOf, q.asOf],
];

/** Riders (alias r, their 3PL c) of the scope, only some when asked, of the 3PL named when one is. */
export function riders(builder: Knex.QueryBuilder, q: AttentionQuery) {
  applyScope(builder, q.scope);
  if (q.riderIds) builder.whereIn('r.id', q.riderIds);
  if (q.riderOf) builder.whereRaw(`r.id = ${q.riderOf}`);
  return namedCompany(builder, q.company);
}

/** The rider a row is about (`subject`, as rider_id), their name and 3PL: the first cells of a rider rule's rows. */
export const riderCells = (subject: string) => [`${subject} as rider_id`, 'r.name as rider_name', 'c.name as company'];

/** Only the rows of the 3PL named (alias c), when one is: a rule list's `3pl` filter, for its batches. */
export const namedCompany = (builder: Knex.QueryBuilder, company?: string) => (company ? builder.where('c.name', company) : builder);

/**
 * Leaves out a row handled by a supervisor (access.attention_handled, migrations 014 and 020): one
 * handling of this rule and subject, not undone, recorded by the end of the as-of day and not
 * superseded by then, whose evidence is at least as new as the row's and whose "until" day has not
 * passed. One index probe per row. With q.onlyHandled, the other way round: only the rows so handled.
 */
export function unhandled(
  builder: Knex.QueryBuilder,
  q: AttentionQuery,
  rule: string,
  subject: string,
  evidence: string,
  evidenceBindings: Array<string | null> = [],
) {
  if (!q.hideHandled && !q.onlyHandled) return builder;
  return builder.whereRaw(
    `${q.onlyHandled ? '' : 'NOT '}EXISTS (SELECT 1 FROM access.attention_handled h WHERE h.rule = ? AND h.subject_id = ${subject} AND h.undone_at IS NULL
       AND h.evidence_at >= ${evidence} AND (h.until IS NULL OR h.until >= ${AS_OF}) AND h.handled_at < ${UNTIL}
       AND (h.superseded_at IS NULL OR h.superseded_at >= ${UNTIL}))`,
    [rule, ...evidenceBindings, q.asOf, q.asOf, q.asOf],
  );
}

/**
 * The newest handling of this rule and subject that is not undone (alias hn: note, by, on): on a row
 * still listed, the note of an earlier handling that new evidence or its "until" day brought back.
 */
export function earlierNote(builder: Knex.QueryBuilder, rule: string, subject: string) {
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

/**
 * The gaps between checks that hold the end of the as-of day and meet `condition` (alias o), as g:
 * today, each rider's open gap (no check since); a past day, the gaps not yet closed by its end. Each
 * is read from an index in the order of the check that opens the gap (migration 014), so a page stops
 * after its rows and a count at its cap.
 */
export function gapsAtEnd(q: AttentionQuery, condition: (o: Knex.QueryBuilder) => Knex.QueryBuilder) {
  const gaps = sql('kept_check_gaps as o').select('o.rider_id', 'o.check_id', 'o.from_at', 'o.streak', 'o.streak_start');
  if (q.asOf === null) gaps.whereNull('o.until_at');
  else gaps.whereRaw(`(o.until_at IS NULL OR o.until_at >= ${UNTIL})`, [q.asOf]);
  return condition(gaps).as('g');
}

/** The gaps of gapsAtEnd with their riders (r) and 3PLs (c), of the scope and the riders asked for. */
export function gapRiders(q: AttentionQuery, condition: (o: Knex.QueryBuilder) => Knex.QueryBuilder) {
  return riders(
    sql.from(gapsAtEnd(q, condition)).join('riders as r', 'r.id', 'g.rider_id').join('companies as c', 'c.id', 'r.company_id'),
    q,
  );
}
