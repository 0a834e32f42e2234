import type { Request, Response } from 'express';
import type { AttentionSettings } from '../config';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { defineParams } from '../filters/define';
import { queryValidator } from '../filters/validate';
import { clientSignal } from '../http/client-signal';
import { HttpError, type FieldErrors } from '../http/errors';
import { sessionKey, type StreamLimit } from '../http/stream-limit';
import * as attention from '../queries/attention';
import * as patrolChecks from '../queries/patrol-checks';
import { addDays } from './charts';
import { formModel } from './form';
import type { ListColumn } from './list-page';
import { cellText } from './list-page';
import { render } from '../html/render';
import { scopeOf } from '../html/scope';
import { streamCsv, type Row } from './stream-csv';
import { stringQuery } from '../html/urls';
import { links } from '../html/links';
import { checkQuery } from '../html/validate-or-redraw';

// "Needs attention": the rules of src/queries/attention.ts, each shown with what it means, how many
// match, the first rows (each linking to the rider) and a CSV of all of them.

export const SHOWN = 20;

export interface Rule {
  name: attention.RuleName;
  title: string;
  /** What the rule means, with the thresholds in force. */
  means: (s: AttentionSettings) => string;
  /** What the home page's count counts. */
  counted: string;
  columns: ListColumn[];
}

const riderHref = (row: Row) => links.rider(String(row.rider_id));
const riderColumns: ListColumn[] = [
  { key: 'rider_id', label: 'Rider ID', numeric: true, href: riderHref },
  { key: 'rider_name', label: 'Rider', auto: true, href: riderHref },
  { key: 'company', label: '3PL', auto: true },
];

export const RULES: Rule[] = [
  {
    name: 'failing-checks',
    title: 'Failing patrol checks',
    means: (s) =>
      `Riders whose last ${s.failedChecks} patrol checks each failed a validation (ID, plate or sticker), newest failure first.`,
    counted: 'riders failing their last checks',
    columns: [
      ...riderColumns,
      { key: 'last_check', label: 'Last check', nowrap: true },
      { key: 'failing_since', label: 'Failing since', nowrap: true },
      { key: 'last_failed', label: 'Last check failed' },
    ],
  },
  {
    name: 'overdue-items',
    title: 'Items past their exchange day',
    means: () =>
      'Items still held after the day they became eligible for exchange (assigned, plus the product’s exchange period), longest overdue first.',
    counted: 'items past their exchange day',
    columns: [
      ...riderColumns,
      { key: 'product_name', label: 'Item', text: (row) => `${row.product_name} / ${row.variation_name}` },
      { key: 'assigned_on', label: 'Assigned', nowrap: true },
      { key: 'eligible_on', label: 'Exchange due', nowrap: true },
      { key: 'days_past', label: 'Days past', numeric: true },
    ],
  },
  {
    name: 'losses',
    title: 'Lost and Accident exchanges by 3PL',
    means: (s) =>
      `3PLs with Lost or Accident exchanges in the last ${s.lossDays} days, against how many they usually have in ${s.lossDays} days (their rate over the ${s.baselineDays} days before). Those above their usual rate come first; the count is of those.`,
    counted: '3PLs above their usual Lost and Accident rate',
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
    columns: [
      ...riderColumns,
      { key: 'held', label: 'Items held', numeric: true },
      { key: 'last_check', label: 'Last check', text: (row) => (row.last_check ? String(row.last_check) : 'Never') },
    ],
  },
];

const params = defineParams({
  as_of: { type: 'date', label: 'As of', description: 'The day the rules are judged at the end of; today when not given.' },
});
const validate = queryValidator(params);

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

/**
 * The counts of every rule, for the home page's panel. Counted afresh at every visit: each is a
 * bounded read of the data kept by triggers, so a check written a moment ago is in the next count.
 */
export function attentionCounter(pool: Reader, settings: AttentionSettings) {
  return (res: Response, asOf: string, isToday: boolean): Promise<Counts> => {
    const q = { asOf, settings, scope: scopeOf(res) };
    const signal = clientSignal(res);
    return Promise.all(
      RULES.map(async (rule) => {
        const [{ total }] = await queryRows<{ total: string }>(pool, toNative(attention.ruleCount(rule.name, q)), signal);
        return {
          name: rule.name,
          counted: rule.counted,
          ...shownCount(Number(total)),
          href: `${links.attention(isToday ? {} : { as_of: asOf })}#${rule.name}`,
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
    const q = { asOf, settings, scope: scopeOf(res) };
    const signal = clientSignal(res);
    const sections = await Promise.all(
      RULES.map(async (rule) => {
        const [[{ total }], rows] = await Promise.all([
          queryRows<{ total: string }>(pool, toNative(attention.ruleCount(rule.name, q)), signal),
          queryRows<Row>(pool, toNative(attention.rules[rule.name](q).limit(SHOWN)), signal),
        ]);
        const shownRows = rows.map((row) => (rule.name === 'losses' ? { ...row, href: lossesHref(row, asOf, settings) } : row));
        const shown = shownCount(Number(total));
        const listed = rule.name === 'losses' ? shownRows.length : shown.total;
        return {
          ...rule,
          means: rule.means(settings),
          ...shown,
          listed,
          headers: rule.columns.filter((c) => c.only !== 'csv').map((c) => ({ label: c.label, numeric: c.numeric })),
          rows: shownRows.map((row) =>
            rule.columns
              .filter((c) => c.only !== 'csv')
              .map((c) => ({
                label: c.label,
                text: cellText(c, row),
                href: c.href?.(row),
                badge: c.badge?.(row),
                numeric: c.numeric,
                nowrap: c.nowrap,
                auto: c.auto,
              })),
          ),
          csvHref: links.attentionCsv(rule.name, given ? { as_of: given } : {}),
        };
      }),
    );
    const form = formModel({ action: links.attention(), params, raw: stringQuery(req.query as Record<string, unknown>), errors });
    await render(
      res,
      'attention',
      { title: 'Needs attention', section: 'attention', form, asOf, isToday: asOf === today, sections, shown: SHOWN },
      errors ? 400 : 200,
    );
  }

  async function csv(req: Request, res: Response): Promise<void> {
    const rule = RULES.find((r) => r.name === req.params.rule);
    if (!rule) throw new HttpError(404, 'There is no such list of points to attend to.');
    const { asOf: given, errors } = await valuesOf(req);
    if (errors) throw new HttpError(400, `as_of ${errors.as_of?.join('; ')}`);
    const { asOf } = await asOfDay(pool, res, given);
    const query = attention.rules[rule.name]({ asOf, settings, scope: scopeOf(res) });
    const { key, what } = sessionKey(req);
    const columns = rule.columns.map((c) => ({
      label: c.label,
      text: (row: Row) => (rule.name === 'losses' && c.key === 'company' ? String(row.company) : cellText(c, row)),
    }));
    await streamLimit.run(key, what, () =>
      streamCsv(streamPool, toNative(query), res, { filename: `attention-${rule.name}-${asOf}.csv`, columns }),
    );
  }

  return { page, csv };
}
