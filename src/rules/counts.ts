import type { Knex } from 'knex';
import type { AttentionSettings } from '../config';
import { sql } from '../db/knex';
import { applyScope } from '../filters/scope';
import type { AttentionQuery, CompanyRule, RiderRule } from './define';
import { AS_OF, namedCompany, UNTIL } from './sql';

// Exact counts of the rules by 3PL, at today or any day, from the days kept per rule, 3PL and day
// (migration 023): a rule's riders at the end of day D are those that entered it up to D less those
// that left, a sum over a few thousand rows whatever the fleet's size. The rows supervisors marked
// handled are then taken off: the rows of the rule a live handling hides, one index probe per
// handling (so the cost follows the handlings, not the fleet). A 3PL rule's rows are its 3PLs.

/** Only the 3PLs of the scope and, when one is named, that one (alias c). */
function companies(builder: Knex.QueryBuilder, q: AttentionQuery) {
  return namedCompany(applyScope(builder, q.scope, 'c.id'), q.company);
}

/** The thresholds the kept days are written for: the counts are exact only while they are the service's. */
export const keptSettings = () => sql('kept_rule_settings').select('failed_checks', 'unchecked_days');

export const keptFor = (row: { failed_checks: number; unchecked_days: number } | undefined, s: AttentionSettings) =>
  row !== undefined && row.failed_checks === s.failedChecks && row.unchecked_days === s.uncheckedDays;

/**
 * Per rider rule and 3PL (company_id, company): its riders at the end of the as-of day, handled or not.
 * With `rules`, only theirs (a rule's own list reads its part of the primary key, not every rule's days).
 */
export function keptCounts(q: AttentionQuery, rules?: readonly string[]) {
  const days = sql('kept_rule_days as k');
  if (rules) days.whereIn('k.rule', rules as string[]);
  return companies(
    days
      .join('companies as c', 'c.id', 'k.company_id')
      .whereRaw(`k.day <= ${AS_OF}`, [q.asOf])
      .groupBy('k.rule', 'c.id')
      .select('k.rule', sql.raw('c.id::text AS company_id'), 'c.name as company', sql.raw('sum(k.entered - k.exited)::int AS n')),
    q,
  );
}

/**
 * Per 3PL: the rows of a rider rule that a live handling hides at the end of the as-of day. Read from
 * the riders handled then (their own index entries, one probe each), so it costs as many probes as
 * there are such handlings, whatever the fleet.
 */
export function handledCounts(rule: RiderRule, q: AttentionQuery) {
  const handled = sql('access.attention_handled as hl')
    .distinct('hl.subject_id')
    .where('hl.rule', rule.name)
    .whereNull('hl.undone_at')
    .whereRaw(`hl.handled_at < ${UNTIL} AND (hl.superseded_at IS NULL OR hl.superseded_at >= ${UNTIL})`, [q.asOf, q.asOf]);
  const hidden = rule.list
    .core({ ...q, hideHandled: false, onlyHandled: true, riderOf: 'hs.subject_id' })
    .select(sql.raw('c.id AS company_id'))
    .limit(1);
  return sql
    .from(handled.as('hs'))
    .joinRaw('CROSS JOIN LATERAL (?) AS x', [hidden as unknown as Knex.Raw])
    .groupBy('x.company_id')
    .select(sql.raw('x.company_id::text AS company_id'), sql.raw('count(*)::int AS n'));
}

/** Per 3PL: 1 when a 3PL rule counts it (not handled) at the end of the as-of day. */
export function companyRuleCounts(rule: CompanyRule, q: AttentionQuery) {
  return sql
    .from(rule.rows({ ...q, hideHandled: true }).as('x'))
    .join('companies as c', 'c.id', 'x.company_id')
    .where(`x.${rule.counts}`, true)
    .select(sql.raw('c.id::text AS company_id'), 'c.name as company', sql.raw('1 AS n'));
}

/** Weeks the flow of a rule is shown for, each ending on the as-of day or 7, 14, … days before it. */
export const FLOW_WEEKS = 12;

/**
 * Per rider rule and week back from the as-of day (0: the 7 days ending with it): the riders that
 * entered the rule and left it by themselves (checked, item returned) that week.
 */
export function weeklyFlow(q: AttentionQuery) {
  const weeksAgo = `floor((${AS_OF} - k.day) / 7)::int`;
  return companies(
    sql('kept_rule_days as k')
      .join('companies as c', 'c.id', 'k.company_id')
      .whereRaw(`k.day > ${AS_OF} - ?::int AND k.day <= ${AS_OF}`, [q.asOf, FLOW_WEEKS * 7, q.asOf])
      .groupByRaw('1, 2') // the rule and the week as selected (bound twice, the expressions would differ)
      .select(
        'k.rule',
        sql.raw(`${weeksAgo} AS weeks_ago`, [q.asOf]),
        sql.raw('sum(k.entered)::int AS entered'),
        sql.raw('sum(k.exited)::int AS exited'),
      ),
    q,
  );
}

/** Per rule and week back from the as-of day: the rows supervisors marked handled that week (not undone). */
export function weeklyHandled(q: AttentionQuery, companyRuleNames: readonly string[]) {
  const weeksAgo = `floor((${AS_OF} - (h.handled_at)::date) / 7)::int`;
  return companies(
    sql('access.attention_handled as h')
      .joinRaw(
        `JOIN companies c ON c.id = CASE WHEN h.rule = ANY (?) THEN h.subject_id ELSE (SELECT r.company_id FROM riders r WHERE r.id = h.subject_id) END`,
        [companyRuleNames as string[]],
      )
      .whereNull('h.undone_at')
      .whereRaw(`h.handled_at >= (${AS_OF} - ?::int)::timestamptz AND h.handled_at < (${AS_OF} + 1)::timestamptz`, [
        q.asOf,
        FLOW_WEEKS * 7 - 1,
        q.asOf,
      ])
      .groupByRaw('1, 2')
      .select('h.rule', sql.raw(`${weeksAgo} AS weeks_ago`, [q.asOf]), sql.raw('count(*)::int AS handled')),
    q,
  );
}

/** Runs a query (the caller's pool, signal and transaction). */
export type Run = <T extends object>(query: Knex.QueryBuilder) => Promise<T[]>;

/** The rules' exact counts at the end of the as-of day: per rule, its rows per 3PL (by id) and in all. */
export interface CountTable {
  /** The 3PLs of the scope (the one named, when one is), by name. */
  companies: Array<{ id: string; name: string }>;
  /** Per rule: its rows (not handled) in all and per 3PL id, and (rider rules) its riders handled or not. */
  byRule: Map<string, { total: number; kept: number; byCompany: Map<string, number> }>;
}

/**
 * Every rule's rows per 3PL, not handled: rider rules from their kept days less their handled rows, a
 * 3PL rule from its rows. Undefined when the kept days are written for other thresholds than the
 * service's (kept_rules_set has not run for them yet).
 */
export async function countTable(
  run: Run,
  rules: ReadonlyArray<RiderRule | CompanyRule>,
  q: AttentionQuery,
): Promise<CountTable | undefined> {
  const riderRules = rules.filter((rule): rule is RiderRule => rule.subject === 'rider');
  const [[settings], all, kept, ...parts] = await Promise.all([
    run<{ failed_checks: number; unchecked_days: number }>(keptSettings()),
    run<{ id: string; name: string }>(companies(sql('companies as c').select(sql.raw('c.id::text AS id'), 'c.name'), q).orderBy('c.name')),
    run<{ rule: string; company_id: string; n: number }>(
      keptCounts(
        q,
        riderRules.map((rule) => rule.name),
      ),
    ),
    ...rules.map((rule) =>
      run<{ company_id: string; n: number }>(rule.subject === 'rider' ? handledCounts(rule, q) : companyRuleCounts(rule, q)),
    ),
  ]);
  if (!keptFor(settings, q.settings)) return undefined;
  const byRule = new Map(rules.map((rule) => [rule.name, { total: 0, kept: 0, byCompany: new Map<string, number>() }]));
  const add = (rule: string, companyId: string, n: number) => {
    const counts = byRule.get(rule);
    if (!counts || n === 0) return;
    counts.total += n;
    counts.byCompany.set(companyId, (counts.byCompany.get(companyId) ?? 0) + n);
  };
  for (const row of kept) {
    if (!riderRules.some((rule) => rule.name === row.rule)) continue;
    add(row.rule, row.company_id, row.n);
    byRule.get(row.rule)!.kept += row.n;
  }
  rules.forEach((rule, i) => {
    for (const row of parts[i]) add(rule.name, row.company_id, rule.subject === 'rider' ? -row.n : row.n);
  });
  return { companies: all, byRule };
}
