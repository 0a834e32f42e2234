import type { Knex } from 'knex';
import { sql } from '../db/knex';
import type { Scope } from '../filters/scope';
import type { AttentionQuery, RiderRule } from './index';
import { namedCompany } from './sql';
import { cappedCount } from '../queries/keyset';

// Who works on a row of a rider rule (access.attention_owners, migration 022): a supervisor a lead gave
// it to, shown on the row, a filter of the rule's list ("Mine", "Unassigned"), and kept on the handling.

/** The filter's word for the rows nobody was given. */
export const UNASSIGNED = 'unassigned';

/** The row's owner's username (alias `owner`), for a rule's rows (their subject: `rule.list.subject`). */
export function withOwner(builder: Knex.QueryBuilder, rule: RiderRule) {
  return builder.select(
    sql.raw(
      `(SELECT s.username FROM access.attention_owners o JOIN access.supervisors s ON s.id = o.assigned_to
         WHERE o.rule = ? AND o.subject_id = ${rule.list.subject}) AS owner`,
      [rule.name],
    ),
  );
}

/** Only the rows given to this supervisor (by username), or to nobody (UNASSIGNED). */
export function ownedBy(builder: Knex.QueryBuilder, rule: RiderRule, owner: string) {
  const given = sql('access.attention_owners as o').where('o.rule', rule.name).whereRaw(`o.subject_id = ${rule.list.subject}`);
  if (owner === UNASSIGNED) return builder.whereNotExists(given.select(sql.raw('1')));
  return builder.whereExists(
    given.join('access.supervisors as s', 's.id', 'o.assigned_to').where('s.username', owner).select(sql.raw('1')),
  );
}

/** What a rule list's filters select besides the day: its 3PL (by name) and whom its rows were given to. */
export interface Selection {
  company?: string;
  /** A supervisor's username, or UNASSIGNED. */
  owner?: string;
}

/** Only the rows of `rows` (a rule's list) the selection keeps, as the list's filters keep them. */
export function selected(rows: Knex.QueryBuilder, rule: RiderRule, selection: Selection) {
  const ofCompany = namedCompany(rows, selection.company);
  return selection.owner ? ownedBy(ofCompany, rule, selection.owner) : ofCompany;
}

/** Supervisors a supervisor of this scope may give rows to: those who see its 3PL (or every 3PL). */
export function assignees(scope: Scope) {
  const builder = sql('access.supervisors as s')
    .whereNull('s.disabled_at')
    .select('s.id', 's.username', 's.company_id')
    .orderBy('s.username');
  if (scope.company_id) builder.where((w) => w.whereNull('s.company_id').orWhere('s.company_id', scope.company_id!));
  return builder;
}

export interface Assignment {
  rule: RiderRule;
  /** Today's listed rows of the scope; `riderIds`: only those ticked. */
  q: AttentionQuery;
  /** Only the rows the list's filters select. */
  selection: Selection;
  /** The supervisor given the rows, and the 3PL they are limited to (only its rows are given), or null: nobody. */
  assignee: { id: string; company_id: string | null } | null;
  by: string;
}

/** The subjects of the rows an assignment covers: listed now (handled ones too), in the assignee's 3PL. */
function subjects(a: Assignment) {
  const scope = a.assignee?.company_id ? { company_id: a.assignee.company_id } : a.q.scope;
  const rows = a.rule.list.core({ ...a.q, scope, hideHandled: false }).select(sql.raw(`${a.rule.list.subject} AS subject`));
  if (a.q.scope.company_id && scope !== a.q.scope) rows.where('r.company_id', a.q.scope.company_id);
  return selected(rows, a.rule, a.selection);
}

/** Gives the rows to the assignee (or takes them from whoever had them), in one statement; returns how many. */
export function assignRows(a: Assignment) {
  if (!a.assignee) {
    return sql.raw(
      `WITH gone AS (DELETE FROM access.attention_owners o USING (SELECT DISTINCT subject FROM (?) s) p
         WHERE o.rule = ? AND o.subject_id = p.subject RETURNING o.subject_id),
       logged AS (INSERT INTO access.attention_gives (rule, subject_id, given_to, given_by)
         SELECT ?::text, subject_id, NULL, ?::bigint FROM gone)
       SELECT count(*)::int AS rows FROM gone`,
      [subjects(a), a.rule.name, a.rule.name, a.by],
    );
  }
  return sql.raw(
    `WITH given AS (
       INSERT INTO access.attention_owners (rule, subject_id, assigned_to, assigned_by)
       SELECT DISTINCT ?::text, subject, ?::bigint, ?::bigint FROM (?) s
       ON CONFLICT (rule, subject_id) DO UPDATE SET assigned_to = EXCLUDED.assigned_to, assigned_by = EXCLUDED.assigned_by, assigned_at = now()
       RETURNING subject_id),
     logged AS (INSERT INTO access.attention_gives (rule, subject_id, given_to, given_by)
       SELECT ?::text, subject_id, ?::bigint, ?::bigint FROM given)
     SELECT count(*)::int AS rows FROM given`,
    [a.rule.name, a.assignee.id, a.by, subjects(a), a.rule.name, a.assignee.id, a.by],
  );
}

/**
 * How many of a rider rule's listed rows (handled ones left out) are given to the supervisor `id`, up to
 * `cap` + 1: read from the supervisor's own rows of access.attention_owners, each looked up in the rule.
 */
export function givenCount(rule: RiderRule, q: AttentionQuery, id: string, cap: number) {
  return cappedCount(givenOnly(rule.list.core({ ...q, hideHandled: true }), rule, id), cap);
}

/** Only the rows of `rows` (a rider rule's) given to the supervisor `id`, read from their own rows of access.attention_owners. */
export function givenOnly(rows: Knex.QueryBuilder, rule: RiderRule, id: string) {
  const mine = sql('access.attention_owners as given')
    .where({ 'given.rule': rule.name, 'given.assigned_to': id })
    .select('given.subject_id');
  return rows.whereRaw(`${rule.list.subject} IN (?)`, [mine]);
}

/** The gives of a rider's rows (newest first, the last `limit`): the rule, to whom (null: taken back), by whom, when. */
export function riderGives(riderId: string, limit: number) {
  return sql('access.attention_gives as g')
    .join('access.supervisors as b', 'b.id', 'g.given_by')
    .leftJoin('access.supervisors as t', 't.id', 'g.given_to')
    .where('g.subject_id', riderId)
    .select(
      'g.id',
      'g.rule',
      't.username as given_to',
      'b.username as given_by',
      sql.raw(`to_char(g.given_at, 'YYYY-MM-DD HH24:MI') AS given_at`),
    )
    .orderBy('g.id', 'desc')
    .limit(limit);
}
