import type { Response } from 'express';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { addDays } from '../filters/days';
import { clientSignal } from '../http/client-signal';
import { COMPANY_RULE_NAMES, riderRules, type AttentionQuery } from '../rules';
import { FLOW_WEEKS, weeklyFlow, weeklyHandled, type CountTable } from '../rules/counts';
import { barRows } from './charts';

// "Is the queue shrinking?" on Needs attention (views/admin/attention.ejs): each rider rule's last weeks,
// the answer in words, the queue's size at each week's end as columns, and the table behind them.

/**
 * "Is the queue shrinking?": per rider rule, the weeks back from the as-of day with the riders that
 * entered the rule, those that left it (checked, item returned), the rows marked handled, and the
 * riders in the rule at each week's end (handled ones too), from the kept days.
 */
export async function flows(pool: Reader, res: Response, q: AttentionQuery, asOf: string, table: CountTable) {
  const signal = clientSignal(res);
  const [moved, handled] = await Promise.all([
    queryRows<{ rule: string; weeks_ago: number; entered: number; exited: number }>(pool, toNative(weeklyFlow(q)), signal),
    queryRows<{ rule: string; weeks_ago: number; handled: number }>(pool, toNative(weeklyHandled(q, COMPANY_RULE_NAMES)), signal),
  ]);
  return new Map(
    riderRules.map((rule) => {
      const at = (weeksAgo: number) => moved.find((r) => r.rule === rule.name && r.weeks_ago === weeksAgo);
      const handledAt = (weeksAgo: number) => handled.find((r) => r.rule === rule.name && r.weeks_ago === weeksAgo)?.handled ?? 0;
      let inRule = table.byRule.get(rule.name)?.kept ?? 0;
      const weeks = Array.from({ length: FLOW_WEEKS }, (_, weeksAgo) => {
        const week = at(weeksAgo);
        const row = {
          from: addDays(asOf, -7 * weeksAgo - 6),
          to: addDays(asOf, -7 * weeksAgo),
          entered: week?.entered ?? 0,
          exited: week?.exited ?? 0,
          handled: handledAt(weeksAgo),
          inRule,
        };
        inRule -= row.entered - row.exited;
        return row;
      }).reverse();
      const top = Math.max(1, ...weeks.map((w) => Math.max(w.entered, w.exited + w.handled)));
      const bar = (value: number) => barRows([{ label: '', value, display: value.toLocaleString('en') }], top)[0];
      const rows = weeks.map((w) => ({ ...w, enteredBar: bar(w.entered), outBar: bar(w.exited + w.handled) }));
      const sum = (key: 'entered' | 'exited' | 'handled') => weeks.reduce((n, w) => n + w[key], 0);
      // The queue's size at each week's end, as columns scaled to the largest (the answer at a glance).
      const tallest = Math.max(1, ...weeks.map((w) => w.inRule));
      const sizes = weeks.map((w) => ({
        to: w.to,
        inRule: w.inRule,
        short: compact(w.inRule),
        height: Math.round((1000 * w.inRule) / tallest) / 10,
      }));
      const [first, last] = [weeks[0].inRule, weeks[weeks.length - 1].inRule];
      const trend = { first, last, change: last - first, from: weeks[0].to, to: weeks[weeks.length - 1].to };
      return [rule.name, { rows, sizes, trend, entered: sum('entered'), out: sum('exited') + sum('handled') }] as const;
    }),
  );
}

/** A figure in at most four characters, for a phone's narrow column: 980, 9.8k, 98k, 980k, 9.8M. */
export function compact(n: number): string {
  const [value, unit] = n >= 1e6 ? [n / 1e6, 'M'] : n >= 1e3 ? [n / 1e3, 'k'] : [n, ''];
  return unit === '' ? String(n) : `${value < 10 ? (Math.floor(value * 10) / 10).toString() : Math.floor(value)}${unit}`;
}
