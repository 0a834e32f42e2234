import type { Request, Response } from 'express';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { clientSignal } from '../http/client-signal';
import { defineParams } from '../filters/define';
import { queryValidator } from '../filters/validate';
import * as assignments from '../queries/assignments';
import * as patrolChecks from '../queries/patrol-checks';
import * as productExchanges from '../queries/product-exchanges';
import { addDays } from '../filters/days';
import { barRows, dayChart, daysBetween } from './charts';
import { formModel } from './form';
import { attentionCounter } from './attention';
import { givenTo } from './given';
import type { AttentionSettings } from '../config';
import { render } from '../html/render';
import { scopeOf } from '../html/scope';
import { stringQuery } from '../html/urls';
import { links } from '../html/links';
import { checkQuery } from '../html/validate-or-redraw';

const homeParams = defineParams({
  as_of: { type: 'date', label: 'Figures as of', description: 'The last day of the 7 and 30 day windows; today when not given.' },
});
const validate = queryValidator(homeParams, 'form');

type Rates = { company: string; checks_7: string; passed_7: string; checks_30: string; passed_30: string };

/** The figures a supervisor looks at first, with small server-drawn charts. */
export function homeHandler(pool: Reader, attention: AttentionSettings) {
  const attentionCounts = attentionCounter(pool, attention);
  return async (req: Request, res: Response): Promise<void> => {
    // With a bad as_of, the figures below are today's; the message beside the field says why.
    const { values, errors } = await checkQuery(validate, req.query);
    const asOf = values?.as_of;
    const signal = clientSignal(res);
    const run = <T>(builder: Parameters<typeof toNative>[0]) => queryRows<T>(pool, toNative(builder), signal);
    const scope = scopeOf(res);
    const [{ latest, today }] = await run<{ latest: string | null; today: string }>(patrolChecks.latestCheckDay(scope));
    const to = asOf ?? today;
    const from7 = addDays(to, -6);
    const from30 = addDays(to, -29);

    const [attend, rates, perDay, [holding], byProduct, exchanges, given] = await Promise.all([
      attentionCounts(res, asOf ?? null, to === today),
      run<Rates>(patrolChecks.passRatesBy3pl({ from30, from7, to }, scope)),
      run<{ day: string; checks: string; passed: string }>(patrolChecks.checksPerDay({ from: from30, to }, scope)),
      run<{ riders_holding: string; items_held: string; riders: string }>(assignments.holdingTotals(scope)),
      run<{ product_id: string; product_name: string; items: string }>(assignments.heldByProduct(scope)),
      run<{ replacement_type: string; exchanges: string; recent: string }>(
        productExchanges.countsByReplacementType({ from: from30, to }, scope),
      ),
      givenTo(
        pool,
        res,
        { asOf: asOf ?? null, settings: attention, scope, hideHandled: true },
        asOf && to !== today ? { as_of: asOf } : {},
      ),
    ]);

    const sum = (key: keyof Rates) => rates.reduce((n, row) => n + Number(row[key]), 0);
    const checksHref = (from: string, company?: string) => links.checks({ check_date_from: from, check_date_to: to, '3pl': company ?? '' });
    // The figures about failures and pass rates lead to the failed checks they count.
    const failedHref = (from: string, until: string, company?: string) =>
      links.checks({ check_date_from: from, check_date_to: until, '3pl': company ?? '', result: 'failed' });
    const figures = {
      to,
      from7,
      from30,
      checks7: sum('checks_7'),
      passed7: sum('passed_7'),
      checks30: sum('checks_30'),
      passed30: sum('passed_30'),
      checks7Href: checksHref(from7),
      checks30Href: checksHref(from30),
      failed7Href: failedHref(from7, to),
      failed30Href: failedHref(from30, to),
      ridersHolding: Number(holding.riders_holding),
      itemsHeld: Number(holding.items_held),
      riders: Number(holding.riders),
    };
    const rateRows = rates.map((row) => ({
      company: row.company,
      checks7: Number(row.checks_7),
      passed7: Number(row.passed_7),
      checks30: Number(row.checks_30),
      passed30: Number(row.passed_30),
      href7: checksHref(from7, row.company),
      href30: checksHref(from30, row.company),
      failed7Href: failedHref(from7, to, row.company),
      failed30Href: failedHref(from30, to, row.company),
    }));
    const rateBars = barRows(
      rateRows.map((row) => ({
        label: row.company,
        value: row.checks30 ? row.passed30 / row.checks30 : 0,
        display: row.checks30 ? `${Math.round((100 * row.passed30) / row.checks30)}%` : '–',
        extra: `${row.passed30} of ${row.checks30}`,
        href: row.href30,
      })),
      1,
    );
    const counts = new Map(perDay.map((row) => [row.day, { checks: Number(row.checks), passed: Number(row.passed) }]));
    const chart = dayChart(daysBetween(from30, to), counts);
    const days = {
      ...chart,
      columns: chart.columns.map((c) => ({ ...c, failedHref: c.checks > c.passed ? failedHref(c.day, c.day) : undefined })),
    };
    const productBars = barRows(
      byProduct.map((row) => ({
        label: row.product_name,
        value: Number(row.items),
        display: Number(row.items).toLocaleString('en-US'),
        href: links.assignments({ product_id: row.product_id, active: '1' }),
      })),
    );
    const exchangeBars = barRows(
      exchanges.map((row) => ({
        label: row.replacement_type,
        value: Number(row.exchanges),
        display: Number(row.exchanges).toLocaleString('en-US'),
        extra: Number(row.recent).toLocaleString('en-US'), // exchanges in the last 30 days
        href: links.exchanges({ replacement_type: row.replacement_type, exchange_date_to: to }),
      })),
    );

    const form = formModel({ action: links.home(), params: homeParams, raw: stringQuery(req.query as Record<string, unknown>), errors });
    // Data that stops before the window (an old export, the demo) would show only zeros: say so, and offer its last day.
    const latestHint = latest && latest < from7 ? { day: latest, href: links.home({ as_of: latest }) } : undefined;
    await render(
      res,
      'home',
      {
        title: 'Overview',
        section: 'home',
        form,
        figures,
        given,
        today,
        isToday: to === today,
        latestHint,
        attend,
        rateRows,
        rateBars,
        days,
        productBars,
        exchangeBars,
      },
      errors ? 400 : 200,
    );
  };
}
