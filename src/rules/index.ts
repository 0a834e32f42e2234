import { sql } from '../db/knex';
import { cappedCount, orderAll } from '../queries/keyset';
import type { AttentionQuery, CompanyRule, RiderRule, Rule } from './define';
import failingChecks from './failing-checks';
import losses from './losses';
import overdueItems from './overdue-items';
import unchecked from './unchecked';

export type { AttentionQuery, CompanyRule, RiderRule, Rule, RuleColumn, Words } from './define';

/**
 * Every rule, in the order Needs attention, the home page and the open points show them. The one list
 * of the rules: their names (also the database's, migration 014's CHECK), pages, lists and handling
 * all come from here.
 */
export const RULES = [failingChecks, overdueItems, losses, unchecked] as const;

/** A rule of the list (its name one of RuleName). */
export type RegisteredRule = (typeof RULES)[number];
export type RuleName = RegisteredRule['name'];
export type RiderRuleName = Extract<(typeof RULES)[number], { subject: 'rider' }>['name'];

export const RULE_NAMES: readonly RuleName[] = RULES.map((rule) => rule.name);

export const ruleNamed = (name: string): RegisteredRule | undefined => RULES.find((rule) => rule.name === name);

export const riderRules = RULES.filter((rule): rule is Extract<(typeof RULES)[number], RiderRule> => rule.subject === 'rider');
export const companyRules = RULES.filter((rule): rule is Extract<(typeof RULES)[number], CompanyRule> => rule.subject === '3pl');

/** The names of the rules whose subject is a 3PL (a handling's subject_id is then a company's id). */
export const COMPANY_RULE_NAMES: readonly string[] = companyRules.map((rule) => rule.name);

/**
 * Rule counts stop at this many: past it a page says "more than 1,000", and a count costs the same at
 * any size of fleet (a count checks each row: whether it is handled, whether the rider held equipment
 * then, so an uncapped count grows with the fleet: docs/runs/ADMIN-BENCHMARKS.md). The rows are still all listed,
 * paged and in the CSV.
 */
export const COUNT_CAP = 1_000;

/** How many rows a rule has, up to COUNT_CAP + 1 (a 3PL rule: the rows it counts), without the rows' columns. */
export function ruleCount(rule: Rule, q: AttentionQuery) {
  if (rule.subject === '3pl') return sql.from(rule.rows(q).clearOrder().as('x')).where(`x.${rule.counts}`, true).count({ total: '*' });
  return cappedCount(rule.list.core(q), COUNT_CAP, rule.list.countOrder);
}

/**
 * The newest evidence of a rule for one subject at the end of the as-of day (what a handling recorded
 * now covers), or no row when the subject is not listed.
 */
export function ruleEvidence(rule: Rule, subjectId: string, q: Omit<AttentionQuery, 'riderIds' | 'hideHandled'>) {
  if (rule.subject === '3pl')
    return sql.select(sql.raw(`${rule.evidence('?::bigint')} AS evidence_at`, [subjectId, ...rule.evidenceBindings(q)]));
  return rule.list
    .core({ ...q, riderIds: [subjectId] })
    .select(sql.raw('max(?) AS evidence_at', [rule.evidence(q)]))
    .havingRaw('count(*) > 0');
}

/** Every row of a rule with its columns, in its list's default order (a 3PL rule: its rows). */
export function ruleRows(rule: Rule, q: AttentionQuery) {
  if (rule.subject === '3pl') return rule.rows(q);
  const { sort, dir } = rule.list.defaultSort;
  return orderAll(rule.list.columns(rule.list.core(q), q), rule.list.sorts[sort], dir, rule.list.tieBreak);
}

/** The rows a rule shows first on Needs attention: the first `n` (a 3PL rule: all of them). */
export const firstRows = (rule: Rule, q: AttentionQuery, n: number) => (rule.subject === '3pl' ? rule.rows(q) : ruleRows(rule, q).limit(n));
