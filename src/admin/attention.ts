import type { Request, Response } from 'express';
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
import * as attention from '../queries/attention';
import { orderAll } from '../queries/keyset';
import * as patrolChecks from '../queries/patrol-checks';
import { addDays } from './charts';
import { formModel } from './form';
import type { ListColumn, ListResource, Values } from './list-page';
import { cellText, cellsOf } from './list-page';
import { render } from '../html/render';
import { scopeOf } from '../html/scope';
import { streamCsv, type Row } from './stream-csv';
import { stringQuery } from '../html/urls';
import { links } from '../html/links';
import { checkQuery } from '../html/validate-or-redraw';

// "Needs attention": the rules of src/queries/attention.ts as a work queue. The page shows each rule
// with what it means, how many rows are open and the first of them; each rider rule is also a list
// (paged, sortable, CSV: the admin list engine); each row can be marked handled (src/admin/handling.ts),
// which takes it off the rule until new evidence or its "until" day brings it back.

/** Rows each rule shows on the page; the rest are on the rule's own list. */
export const SHOWN = 10;

export interface Rule {
  name: attention.RuleName;
  title: string;
  /** What the rule means, with the thresholds in force. */
  means: (s: AttentionSettings) => string;
  /** What the home page's count counts. */
  counted: string;
  /** What one row is. */
  noun: [singular: string, plural: string];
  columns: ListColumn[];
}

const riderHref = (row: Row) => links.rider(String(row.rider_id));
const riderColumns: ListColumn[] = [
  { key: 'rider_id', label: 'Rider ID', numeric: true, href: riderHref, sort: 'rider_id' },
  { key: 'rider_name', label: 'Rider', auto: true, href: riderHref },
  { key: 'company', label: '3PL', auto: true },
];
const lastCheckHref = (row: Row) => (row.last_check_id ? links.check(String(row.last_check_id)) : undefined);

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
const handle = (rule: attention.RuleName, subject: (row: Row) => string): ListColumn => ({
  key: 'handle',
  label: 'Handle',
  only: 'table',
  action: (row) => ({
    key: `${rule}-${row.assignment_id ?? subject(row)}`,
    url: links.attentionHandled(rule),
    subject: subject(row),
    about: `${row.rider_name ?? row.company}`,
  }),
});

export const RULES: Rule[] = [
  {
    name: 'failing-checks',
    title: 'Failing patrol checks',
    means: (s) =>
      `Riders whose last ${s.failedChecks} patrol checks each failed a validation (ID, plate or sticker), newest failure first.`,
    counted: 'riders failing their last checks',
    noun: ['rider', 'riders'],
    columns: [
      ...riderColumns,
      { key: 'last_check', label: 'Last check', nowrap: true, href: lastCheckHref, sort: 'last_check', firstDir: 'desc' },
      { key: 'failing_since', label: 'Failing since', nowrap: true, sort: 'failing_since' },
      { key: 'last_failed', label: 'Last check failed' },
    ],
  },
  {
    name: 'overdue-items',
    title: 'Items past their exchange day',
    means: () =>
      'Items still held after the day they became eligible for exchange (assigned, plus the product’s exchange period), longest overdue first.',
    counted: 'items past their exchange day',
    noun: ['item', 'items'],
    columns: [
      { ...riderColumns[0], sort: undefined },
      ...riderColumns.slice(1),
      { key: 'product_name', label: 'Item', text: (row) => `${row.product_name} / ${row.variation_name}` },
      { key: 'assigned_on', label: 'Assigned', nowrap: true },
      { key: 'eligible_on', label: 'Exchange due', nowrap: true, sort: 'exchange_day' },
      { key: 'days_past', label: 'Days past', numeric: true },
    ],
  },
  {
    name: 'losses',
    title: 'Lost and Accident exchanges by 3PL',
    means: (s) =>
      `3PLs with Lost or Accident exchanges in the last ${s.lossDays} days, against how many they usually have in ${s.lossDays} days (their rate over the ${s.baselineDays} days before). Those above their usual rate come first; the count is of those.`,
    counted: '3PLs above their usual Lost and Accident rate',
    noun: ['3PL', '3PLs'],
    columns: [
      { key: 'company', label: '3PL', auto: true, href: (row) => String(row.href) },
      { key: 'recent', label: 'Lost and Accident', numeric: true },
      { key: 'usual', label: 'Usual', numeric: true },
      {
        key: 'above_usual',
        label: 'Above usual',
        text: (row) => (row.above_usual ? 'Yes' : 'No'),
        badge: (row) => (row.above_usual ? 'fail' : undefined),
      },
    ],
  },
  {
    name: 'unchecked',
    title: 'Riders not checked lately',
    means: (s) => `Riders holding equipment with no patrol check in the last ${s.uncheckedDays} days, never checked first.`,
    counted: `riders holding equipment and not checked lately`,
    noun: ['rider', 'riders'],
    columns: [
      { ...riderColumns[0], sort: undefined },
      ...riderColumns.slice(1),
      { key: 'held', label: 'Items held', numeric: true },
      {
        key: 'last_check',
        label: 'Last check',
        nowrap: true,
        text: (row) => (row.last_check ? String(row.last_check) : 'Never'),
        href: lastCheckHref,
        sort: 'last_check',
      },
    ],
  },
];

/** A rule's columns on the page and in its list: its own, the earlier note, and the handle control. */
export function ruleColumns(rule: Rule): ListColumn[] {
  const subject = rule.name === 'losses' ? (row: Row) => String(row.company_id) : (row: Row) => String(row.rider_id);
  return [...rule.columns, earlierNote, handle(rule.name, subject)];
}

export const ruleNamed = (name: string): Rule | undefined => RULES.find((r) => r.name === name);

const params = defineParams({
  as_of: { type: 'date', label: 'As of', description: 'The day the rules are judged at the end of; today when not given.' },
});
const validate = queryValidator(params, 'form');

/** The filters of a rule's list: the day, and the 3PL. */
const ruleParams = defineParams({
  ...params,
  '3pl': company('c.name', 'riders'),
});

/** The lists of the rider rules, for the list engine (src/admin/list-page.ts), at /attention/<rule>. */
export function ruleListResources(settings: AttentionSettings): ListResource[] {
  return RULES.filter((rule) => rule.name !== 'losses').map((rule) => {
    const list = attention.ruleLists[rule.name as attention.RiderRuleName];
    const query = (values: Values): attention.AttentionQuery => ({
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
      countCap: attention.COUNT_CAP,
      countOrder: list.countOrder,
      filtered: (values) => applyFilters(list.core(query(values)), ruleParams, values),
      columns: (builder, values) => list.columns(builder, query(values)),
      csvName: (values) => `attention-${rule.name}-${values.as_of ?? new Date().toISOString().slice(0, 10)}`,
      table: ruleColumns(rule),
    };
  });
}

/** The exchanges list behind a row of the losses rule: that 3PL's exchanges of the window. */
function lossesHref(row: Row, asOf: string, s: AttentionSettings) {
  return links.exchanges({ '3pl': String(row.company), exchange_date_from: addDays(asOf, -(s.lossDays - 1)), exchange_date_to: asOf });
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

type Counts = Array<{ name: attention.RuleName; counted: string; total: number; capped: boolean; href: string }>;

/** A rule's count as shown: exact up to attention.COUNT_CAP, "more than" it past that. */
export function shownCount(total: number): { total: number; capped: boolean } {
  return total > attention.COUNT_CAP ? { total: attention.COUNT_CAP, capped: true } : { total, capped: false };
}

/** The queue's rules at the end of `asOf`, or now (null: no day asked for). */
const queueQuery = (asOf: string | null, settings: AttentionSettings, scope: Scope): attention.AttentionQuery => ({
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
        const [{ total }] = await queryRows<{ total: string }>(pool, toNative(attention.ruleCount(rule.name, q)), signal);
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

/** The rows a rule shows on the page: the first SHOWN in the order of its list (losses: all of them). */
function firstRows(rule: Rule, q: attention.AttentionQuery) {
  if (rule.name === 'losses') return attention.losses(q);
  const list = attention.ruleLists[rule.name];
  const { sort, dir } = list.defaultSort;
  return orderAll(list.columns(list.core(q), q), list.sorts[sort], dir, list.tieBreak).limit(SHOWN);
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
          queryRows<{ total: string }>(pool, toNative(attention.ruleCount(rule.name, q)), signal),
          queryRows<Row>(pool, toNative(firstRows(rule, q)), signal),
        ]);
        const shownRows = rows.map((row) => (rule.name === 'losses' ? { ...row, href: lossesHref(row, asOf, settings) } : row));
        const shown = shownCount(Number(total));
        const columns = ruleColumns(rule).filter((c) => c.only !== 'csv');
        return {
          ...rule,
          means: rule.means(settings),
          ...shown,
          listed: rule.name === 'losses' ? shownRows.length : shown.total,
          headers: columns.map((c) => ({ label: c.label, numeric: c.numeric })),
          rows: shownRows.map((row) => cellsOf(columns, row)),
          listHref: rule.name === 'losses' ? undefined : links.attentionRule(rule.name, dayQuery),
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

  /** The losses rule's CSV (the rider rules' come from their lists). */
  async function lossesCsv(req: Request, res: Response): Promise<void> {
    const rule = ruleNamed('losses')!;
    const { asOf: given, errors } = await valuesOf(req);
    if (errors) throw new HttpError(400, `as_of ${errors.as_of?.join('; ')}`);
    const { asOf } = await asOfDay(pool, res, given);
    const query = attention.losses(queueQuery(given ?? null, settings, scopeOf(res)));
    const { key, what } = sessionKey(req);
    const columns = ruleColumns(rule)
      .filter((c) => c.only !== 'table')
      .map((c) => ({ label: c.label, text: (row: Row) => (c.key === 'company' ? String(row.company) : cellText(c, row)) }));
    await streamLimit.run(key, what, () =>
      streamCsv(streamPool, toNative(query), res, { filename: `attention-losses-${asOf}.csv`, columns }),
    );
  }

  return { page, lossesCsv };
}
