import type { Request, Response } from 'express';
import type { Knex } from 'knex';
import type { AttentionSettings } from '../config';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { applyFilters } from '../filters/apply';
import { company } from '../filters/common';
import { defineParams } from '../filters/define';
import type { Scope } from '../filters/scope';
import { queryValidator } from '../filters/validate';
import { clientSignal } from '../http/client-signal';
import { HttpError, type FieldErrors } from '../http/errors';
import { sessionKey, type StreamLimit } from '../http/stream-limit';
import * as patrolChecks from '../queries/patrol-checks';
import { givenOnly, ownedBy, UNASSIGNED, withOwner } from '../rules/owners';
import { countTable, FLOW_WEEKS, type CountTable } from '../rules/counts';
import { flows } from './queue-trend';
import {
  companyRules,
  COUNT_CAP,
  firstRows,
  ruleRows,
  riderRules,
  ruleCount,
  RULES,
  type AttentionQuery,
  type CompanyRule,
  type RiderRule,
  type Rule,
  type RuleName,
} from '../rules';
import { ownerColumn, pick, ruleColumns } from './attention-columns';
import { givenTo } from './given';
import type { ChoiceSource } from './choices';
import { formModel } from './form';
import { presentChoices } from './list-form';
import { cellText, FAR_ROWS_UNKEYED, type ListResource, type Values } from './list-page';
import { rowsOf } from './list-table';
import { render } from '../html/render';
import { scopeOf } from '../html/scope';
import { streamCsv, type Row } from './stream-csv';
import { stringQuery } from '../html/urls';
import { links } from '../html/links';
import { checkQuery } from '../html/validate-or-redraw';

// "Needs attention": the rules of src/rules/ as a work queue. The page shows each rule
// with what it means, how many rows are open and the first of them; each rider rule is also a list
// (paged, sortable, CSV: the admin list engine); each row can be marked handled (src/admin/handling.ts),
// which takes it off the rule until new evidence or its "until" day brings it back.

/** Rows each rule shows on the page; the rest are on the rule's own list. */
export const SHOWN = 10;

const params = defineParams({
  as_of: { type: 'date', label: 'As of', description: 'The day the rules are judged at the end of; today when not given.' },
});
/** Needs attention's own form: the day, and one 3PL to look at (counts, first rows and weeks). */
const pageParams = defineParams({
  ...params,
  '3pl': company('c.name', 'riders'),
  mine: {
    type: 'boolean',
    label: 'Given to me',
    description: 'Only the rows given to the signed-in supervisor, across the rules.',
  },
});
const validate = queryValidator(pageParams, 'form');

/** The filters of a rider rule's list: the day, the 3PL, and whom the rows were given to. */
const ruleParamsOf = (rule: RiderRule) =>
  defineParams({
    ...params,
    '3pl': company('c.name', 'riders'),
    owner: {
      type: 'text',
      label: 'Assigned to',
      description: `A supervisor's username: the rows given to them; "${UNASSIGNED}": the rows given to nobody.`,
      where: (builder: Knex.QueryBuilder, owner: string) => void ownedBy(builder, rule, owner),
      form: { lookup: 'supervisor' },
    },
    // The rule's core reads the item from the query (AttentionQuery.item): the filters themselves add nothing.
    ...(rule.list.byItem
      ? {
          product_id: {
            type: 'bigint',
            label: 'Product ID',
            description: 'Only the riders with an item of this product among the rule’s.',
            where: () => undefined,
            form: { label: 'Item', lookup: { item: 'item', variation: 'variation_id' } },
          },
          variation_id: {
            type: 'bigint',
            label: 'Variation ID',
            description: 'Only the riders with an item of this variation among the rule’s.',
            where: () => undefined,
          },
        }
      : {}),
  });

/** The item a rule's list is narrowed to (its `item` picker's product and variation), for AttentionQuery.item. */
export function itemOf(values: { product_id?: unknown; variation_id?: unknown }): AttentionQuery['item'] {
  const productId = values.product_id ? String(values.product_id) : undefined;
  const variationId = values.variation_id ? String(values.variation_id) : undefined;
  return productId || variationId ? { productId, variationId } : undefined;
}

/** The lists of the rider rules, for the list engine (src/admin/list-page.ts), at /attention/<rule>. */
export function ruleListResources(settings: AttentionSettings): ListResource[] {
  return riderRules.map((rule) => {
    const { list } = rule;
    const { bare } = list;
    const ruleParams = ruleParamsOf(rule);
    const query = (values: Values): AttentionQuery => ({
      asOf: (values.as_of as string | undefined) ?? null,
      settings,
      scope: values.company_id ? { company_id: String(values.company_id) } : {},
      hideHandled: true,
      item: list.byItem ? itemOf(values) : undefined,
    });
    return {
      path: `/attention/${rule.name}`,
      title: rule.title,
      intro: `${rule.means(settings)} Rows marked handled are left out until new evidence or their “until” day brings them back.`,
      section: 'attention',
      noun: rule.noun,
      filters: ruleParams,
      companyFields: ['3pl'],
      sorts: list.sorts,
      tieBreak: list.tieBreak,
      defaultSort: list.defaultSort,
      countCap: COUNT_CAP,
      countOrder: list.countOrder,
      // Exact from the kept counts, unless the rows are narrowed by whom they were given to or by item (then counted).
      total: async (values, run) =>
        values.owner || query(values).item
          ? undefined
          : (await countTable(run, [rule], { ...query(values), company: values['3pl'] as string | undefined }))?.byRule.get(rule.name)
              ?.total,
      filtered: (values) => applyFilters(list.core(query(values)), ruleParams, values),
      // A page's keys without the riders' names and 3PLs when nothing narrows by them; still a probe per
      // row skipped, so page numbers as far as an unkeyed list's.
      farRows: FAR_ROWS_UNKEYED,
      keys: bare
        ? (values) => {
            const q = query(values);
            return applyFilters(q.scope.company_id || values['3pl'] ? list.core(q) : bare(q), ruleParams, values);
          }
        : undefined,
      columns: (builder, values) => withOwner(list.columns(builder, query(values)), rule),
      csvName: (values) => `attention-${rule.name}-${values.as_of ?? new Date().toISOString().slice(0, 10)}`,
      batch: links.attentionBatch(rule.name),
      table: [pick, ...ruleColumns(rule, [ownerColumn])],
    };
  });
}

export interface AttentionDeps {
  pool: Reader;
  streamPool: Reader;
  streamLimit: StreamLimit;
  settings: AttentionSettings;
  /** The 3PLs the page's select offers, as the lists' forms read them (kept a while per scope). */
  choices: ChoiceSource;
}

/** The day the rules are judged at: as_of, or today in the session's time zone. */
async function asOfDay(pool: Reader, res: Response, asOf: string | undefined): Promise<{ asOf: string; today: string }> {
  const [{ today }] = await queryRows<{ today: string }>(pool, toNative(patrolChecks.latestCheckDay(scopeOf(res))), clientSignal(res));
  return { asOf: asOf ?? today, today };
}

type Counts = Array<{ name: RuleName; counted: string; total: number; capped: boolean; href: string }>;

/**
 * Every rule's count at the end of the as-of day: exact, with its split by 3PL, from the kept days
 * (src/rules/counts.ts); while those are written for other thresholds than the service's (a start
 * with new ATTENTION_* settings, until kept_rules_set has run), counted up to COUNT_CAP instead.
 */
async function ruleCounts(
  pool: Reader,
  res: Response,
  q: AttentionQuery,
): Promise<{ table?: CountTable; totals: Map<string, { total: number; capped: boolean }> }> {
  const signal = clientSignal(res);
  const table = await countTable(async (query) => queryRows(pool, toNative(query), signal), RULES, q);
  if (table) return { table, totals: new Map([...table.byRule].map(([name, c]) => [name, { total: c.total, capped: false }])) };
  const totals = await Promise.all(
    RULES.map(async (rule) => {
      const [{ total }] = await queryRows<{ total: string }>(pool, toNative(ruleCount(rule, q)), signal);
      return [rule.name, shownCount(Number(total))] as const;
    }),
  );
  return { totals: new Map(totals) };
}

/** The rule × 3PL table: a row per 3PL of the scope, a cell per rule linking to that 3PL's rows. */
function byCompany(table: CountTable, dayQuery: Record<string, string>) {
  const cell = (rule: Rule, id: string, name: string) => {
    const n = table.byRule.get(rule.name)?.byCompany.get(id) ?? 0;
    const href =
      rule.subject === '3pl'
        ? `${links.attention({ ...dayQuery, '3pl': name })}#${rule.name}`
        : links.attentionRule(rule.name, { ...dayQuery, '3pl': name });
    return { n, href: n > 0 ? href : undefined };
  };
  return {
    rules: RULES.map((rule) => ({ name: rule.name, title: rule.title, total: table.byRule.get(rule.name)?.total ?? 0 })),
    rows: table.companies.map((c) => ({
      name: c.name,
      href: links.attention({ ...dayQuery, '3pl': c.name }),
      cells: RULES.map((rule) => cell(rule, c.id, c.name)),
    })),
  };
}

/** A rule's count as shown: exact up to COUNT_CAP, "more than" it past that. */
export function shownCount(total: number): { total: number; capped: boolean } {
  return total > COUNT_CAP ? { total: COUNT_CAP, capped: true } : { total, capped: false };
}

/** The queue's rules at the end of `asOf`, or now (null: no day asked for). */
const queueQuery = (asOf: string | null, settings: AttentionSettings, scope: Scope): AttentionQuery => ({
  asOf,
  settings,
  scope,
  hideHandled: true,
});

/**
 * The counts of every rule, for the home page's panel: rows not handled. Counted afresh at every
 * visit: each is a bounded read of the data kept by triggers, so a check written a moment ago is in
 * the next count.
 */
export function attentionCounter(pool: Reader, settings: AttentionSettings) {
  return async (res: Response, asOf: string | null, isToday: boolean): Promise<Counts> => {
    const { totals } = await ruleCounts(pool, res, queueQuery(asOf, settings, scopeOf(res)));
    return RULES.map((rule) => ({
      name: rule.name,
      counted: rule.counted,
      ...totals.get(rule.name)!,
      href: `${links.attention(isToday || asOf === null ? {} : { as_of: asOf })}#${rule.name}`,
    }));
  };
}

export function attentionHandlers({ pool, streamPool, streamLimit, settings, choices }: AttentionDeps) {
  async function valuesOf(req: Request): Promise<{ asOf?: string; company?: string; mine?: boolean; errors?: FieldErrors }> {
    const { values, errors } = await checkQuery(validate, req.query);
    return { asOf: values?.as_of, company: values?.['3pl'], mine: values?.mine === true, errors };
  }

  async function page(req: Request, res: Response): Promise<void> {
    const { asOf: given, company: named, errors, mine: onlyMine } = await valuesOf(req);
    const { asOf, today } = await asOfDay(pool, res, given);
    // Given to me: the rider rules' rows given to the signed-in supervisor, on one page.
    const me = onlyMine ? (res.locals.supervisor as { id: string } | undefined) : undefined;
    const rules = me ? riderRules : RULES;
    const q: AttentionQuery = { ...queueQuery(given ?? null, settings, scopeOf(res)), company: named };
    const signal = clientSignal(res);
    const dayQuery: Record<string, string> = given ? { as_of: given } : {};
    const listQuery: Record<string, string> = { ...dayQuery, ...(named ? { '3pl': named } : {}) };
    const [counts, sections, companies, mine] = await Promise.all([
      ruleCounts(pool, res, q),
      Promise.all(
        rules.map(async (rule) => {
          // A rider rule's rows show whom each was given to.
          const first =
            rule.subject !== 'rider'
              ? firstRows(rule, q, SHOWN)
              : withOwner(me ? givenOnly(ruleRows(rule, q), rule, me.id).limit(SHOWN) : firstRows(rule, q, SHOWN), rule);
          const rows = await queryRows<Row>(pool, toNative(first), signal);
          const shownRows = rule.subject === '3pl' ? rows.map((row) => ({ ...row, href: rule.href(row, asOf, settings) })) : rows;
          const columns = ruleColumns(rule, rule.subject === 'rider' ? [ownerColumn] : []).filter((c) => c.only !== 'csv');
          return {
            ...rule,
            means: rule.means(settings),
            headers: columns.map((c) => ({ label: c.label, numeric: c.numeric })),
            rows: rowsOf(columns, shownRows),
            listHref: rule.subject === '3pl' ? undefined : links.attentionRule(rule.name, listQuery),
            handledHref: links.attentionHandled(rule.name),
            csvHref: links.attentionCsv(rule.name, listQuery),
          };
        }),
      ),
      choices.companies(scopeOf(res), signal),
      givenTo(pool, res, q, listQuery),
    ]);
    // The weeks are the whole queue's: not read for the rows given to me.
    const flow = counts.table && !me ? await flows(pool, res, q, asOf, counts.table) : undefined;
    const raw = stringQuery(req.query as Record<string, unknown>);
    const offered = { '3pl': presentChoices(raw['3pl'], companies, 'no 3PL of this name') };
    const form = formModel({ action: links.attention(), params: pageParams, raw, errors, choices: offered });
    await render(
      res,
      'attention',
      {
        title: 'Needs attention',
        section: 'attention',
        form,
        asOf,
        isToday: asOf === today,
        // Said above the counts: a day after today is a projection, a 3PL nobody has names no rows.
        future: asOf > today ? today : undefined,
        unknownCompany: named && !companies.includes(named) ? named : undefined,
        company: named,
        // Given to me: each section's count is of the rows given (and its list link narrowed to them); no
        // weeks nor By 3PL, which are the whole queue's.
        mineOnly: Boolean(me),
        allHref: links.attention(listQuery),
        sections: sections.map((section) => {
          const own = me ? mine?.find((g) => g.name === section.name) : undefined;
          return {
            ...section,
            ...(own ? { total: own.total, capped: own.capped, listHref: own.href } : counts.totals.get(section.name)!),
            flow: section.subject === 'rider' ? flow?.get(section.name) : undefined,
          };
        }),
        byCompany: counts.table && !named && !me ? byCompany(counts.table, dayQuery) : undefined,
        given: mine,
        flowWeeks: FLOW_WEEKS,
        shown: SHOWN,
        back: req.originalUrl,
      },
      errors ? 400 : 200,
    );
  }

  /** The CSV of a rule over 3PLs, all its rows (the rider rules' come from their lists). */
  function companyCsv(rule: CompanyRule) {
    return async (req: Request, res: Response): Promise<void> => {
      const { asOf: given, errors } = await valuesOf(req);
      if (errors) throw new HttpError(400, `as_of ${errors.as_of?.join('; ')}`);
      const { asOf } = await asOfDay(pool, res, given);
      const query = rule.rows(queueQuery(given ?? null, settings, scopeOf(res)));
      const { key, what } = sessionKey(req);
      const columns = ruleColumns(rule)
        .filter((c) => c.only !== 'table')
        .map((c) => ({ label: c.label, text: (row: Row) => cellText(c, row) }));
      await streamLimit.run(key, what, () =>
        streamCsv(streamPool, toNative(query), res, { filename: `attention-${rule.name}-${asOf}.csv`, columns }),
      );
    };
  }

  /** Each rule over 3PLs' CSV, by its path. */
  const companyCsvs = companyRules.map((rule) => ({ path: `/attention/${rule.name}.csv`, handler: companyCsv(rule) }));

  return { page, companyCsvs };
}
