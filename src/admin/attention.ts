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
import { ownedBy, UNASSIGNED, withOwner } from '../rules/owners';
import {
  companyRules,
  COUNT_CAP,
  firstRows,
  riderRules,
  ruleCount,
  RULES,
  type AttentionQuery,
  type CompanyRule,
  type RiderRule,
  type Rule,
  type RuleColumn,
  type RuleName,
} from '../rules';
import { formModel } from './form';
import type { ListColumn, ListResource, Values } from './list-page';
import { cellText } from './list-page';
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

/** A row that came back (new evidence, or its "until" day passed) shows the note it was handled with. */
const earlierNote: ListColumn = {
  key: 'earlier_note',
  label: 'Handled before',
  text: (row) =>
    row.earlier_note
      ? `${row.earlier_note} (${row.earlier_by}, ${row.earlier_on}${row.earlier_until ? `, until ${row.earlier_until}` : ''})`
      : '',
};

/** The table's "Mark handled" control (never in the CSV). */
const handle = (rule: Rule): ListColumn => ({
  key: 'handle',
  label: 'Handle',
  only: 'table',
  action: (row) => {
    const subject = String(rule.subject === '3pl' ? row.company_id : row.rider_id);
    return {
      key: `${rule.name}-${row.assignment_id ?? subject}`,
      url: links.attentionHandled(rule.name),
      subject,
      about: `${row.rider_name ?? row.company}`,
    };
  },
});

/** The box that ticks a rider rule's row for its list's batch form (never in the CSV). */
const pick: ListColumn = {
  key: 'pick',
  label: 'Pick',
  only: 'table',
  pick: (row) => ({ value: String(row.rider_id), about: String(row.rider_name) }),
};

/** A rule's column as the list engine draws it. */
const listColumn = ({ href, ...column }: RuleColumn): ListColumn => ({ ...column, ...(href ? { href: (row: Row) => href(row) } : {}) });

/** A rule's columns on the page and in its list: its own, the earlier note, `more`, and the handle control. */
export function ruleColumns(rule: Rule, more: ListColumn[] = []): ListColumn[] {
  return [...rule.columns.map(listColumn), earlierNote, ...more, handle(rule)];
}

const params = defineParams({
  as_of: { type: 'date', label: 'As of', description: 'The day the rules are judged at the end of; today when not given.' },
});
const validate = queryValidator(params, 'form');

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
      form: { placeholder: `a username, or ${UNASSIGNED}` },
    },
  });

/** Who a row was given to (never in the CSV's way: it is a column of both). */
const owner: ListColumn = { key: 'owner', label: 'Assigned to', auto: true, text: (row) => (row.owner ? String(row.owner) : '–') };

/** The lists of the rider rules, for the list engine (src/admin/list-page.ts), at /attention/<rule>. */
export function ruleListResources(settings: AttentionSettings): ListResource[] {
  return riderRules.map((rule) => {
    const { list } = rule;
    const ruleParams = ruleParamsOf(rule);
    const query = (values: Values): AttentionQuery => ({
      asOf: (values.as_of as string | undefined) ?? null,
      settings,
      scope: values.company_id ? { company_id: String(values.company_id) } : {},
      hideHandled: true,
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
      filtered: (values) => applyFilters(list.core(query(values)), ruleParams, values),
      columns: (builder, values) => withOwner(list.columns(builder, query(values)), rule),
      csvName: (values) => `attention-${rule.name}-${values.as_of ?? new Date().toISOString().slice(0, 10)}`,
      batch: links.attentionBatch(rule.name),
      table: [pick, ...ruleColumns(rule, [owner])],
    };
  });
}

export interface AttentionDeps {
  pool: Reader;
  streamPool: Reader;
  streamLimit: StreamLimit;
  settings: AttentionSettings;
}

/** The day the rules are judged at: as_of, or today in the session's time zone. */
async function asOfDay(pool: Reader, res: Response, asOf: string | undefined): Promise<{ asOf: string; today: string }> {
  const [{ today }] = await queryRows<{ today: string }>(pool, toNative(patrolChecks.latestCheckDay(scopeOf(res))), clientSignal(res));
  return { asOf: asOf ?? today, today };
}

type Counts = Array<{ name: RuleName; counted: string; total: number; capped: boolean; href: string }>;

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
  return (res: Response, asOf: string | null, isToday: boolean): Promise<Counts> => {
    const q = queueQuery(asOf, settings, scopeOf(res));
    const signal = clientSignal(res);
    return Promise.all(
      RULES.map(async (rule) => {
        const [{ total }] = await queryRows<{ total: string }>(pool, toNative(ruleCount(rule, q)), signal);
        return {
          name: rule.name,
          counted: rule.counted,
          ...shownCount(Number(total)),
          href: `${links.attention(isToday || asOf === null ? {} : { as_of: asOf })}#${rule.name}`,
        };
      }),
    );
  };
}

export function attentionHandlers({ pool, streamPool, streamLimit, settings }: AttentionDeps) {
  async function valuesOf(req: Request): Promise<{ asOf?: string; errors?: FieldErrors }> {
    const { values, errors } = await checkQuery(validate, req.query);
    return { asOf: values?.as_of, errors };
  }

  async function page(req: Request, res: Response): Promise<void> {
    const { asOf: given, errors } = await valuesOf(req);
    const { asOf, today } = await asOfDay(pool, res, given);
    const q = queueQuery(given ?? null, settings, scopeOf(res));
    const signal = clientSignal(res);
    const dayQuery: Record<string, string> = given ? { as_of: given } : {};
    const sections = await Promise.all(
      RULES.map(async (rule) => {
        const [[{ total }], rows] = await Promise.all([
          queryRows<{ total: string }>(pool, toNative(ruleCount(rule, q)), signal),
          queryRows<Row>(pool, toNative(firstRows(rule, q, SHOWN)), signal),
        ]);
        const shownRows = rule.subject === '3pl' ? rows.map((row) => ({ ...row, href: rule.href(row, asOf, settings) })) : rows;
        const shown = shownCount(Number(total));
        const columns = ruleColumns(rule).filter((c) => c.only !== 'csv');
        return {
          ...rule,
          means: rule.means(settings),
          ...shown,
          listed: rule.subject === '3pl' ? shownRows.length : shown.total,
          headers: columns.map((c) => ({ label: c.label, numeric: c.numeric })),
          rows: rowsOf(columns, shownRows),
          listHref: rule.subject === '3pl' ? undefined : links.attentionRule(rule.name, dayQuery),
          handledHref: links.attentionHandled(rule.name),
          csvHref: links.attentionCsv(rule.name, dayQuery),
        };
      }),
    );
    const form = formModel({ action: links.attention(), params, raw: stringQuery(req.query as Record<string, unknown>), errors });
    await render(
      res,
      'attention',
      {
        title: 'Needs attention',
        section: 'attention',
        form,
        asOf,
        isToday: asOf === today,
        sections,
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
