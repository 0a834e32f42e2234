import type { AttentionSettings } from '../config';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import type { Scope } from '../filters/scope';
import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { liveHandling } from './handling';
import { RULES, riderRules, type RuleName, type Words } from './index';

// A rider's open points: what each "Needs attention" rule (./index.ts) says of that rider, read once
// here for the printable report and the rider's page, and drawn by views/shared/open-points.ejs.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows as PostgreSQL returns them, read by the templates
export type Row = Record<string, any>;

/** One rider's open points: each rule's rows as sentences, in the rules' order. */
export interface OpenPoints {
  points: Array<{ rule: RuleName; words: Words }>;
  any: boolean;
}

/**
 * Which of a rider's open points a supervisor's note keeps off "Needs attention" now (the rule lists the
 * rider, but not once handled rows are left out): by rule, who handled it and when. The rider's page marks them.
 */
export async function handledPoints(
  run: (builder: Knex.QueryBuilder) => Promise<Row[]>,
  riderId: string,
  points: OpenPoints,
  q: { settings: AttentionSettings; scope: Scope },
): Promise<Map<string, { by: string; at: string }>> {
  const rules = riderRules.filter((rule) => points.points.some((point) => point.rule === rule.name));
  const found = await Promise.all(
    rules.map(async (rule) => {
      const listed = await run(
        rule.list
          .core({ asOf: null, ...q, riderIds: [riderId], hideHandled: true })
          .select(sql.raw('1 AS one'))
          .limit(1),
      );
      if (listed.length) return undefined;
      const [live] = await run(liveHandling(rule.name, riderId));
      return live ? ([rule.name, { by: String(live.handled_by), at: String(live.handled_at) }] as const) : undefined;
    }),
  );
  return new Map(found.filter((entry) => entry !== undefined));
}

/** Rows grouped by their `rider_id`, in the order read. */
export function byRider(rows: Row[]): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  for (const row of rows) {
    const key = String(row.rider_id);
    if (!out.has(key)) out.set(key, []);
    out.get(key)!.push(row);
  }
  return out;
}

/**
 * The open points of these riders as of the end of `asOf` (today without it), within the scope: one
 * query per rule whatever the number of riders. Every rider asked for has an entry, empty when nothing
 * is open.
 */
export async function openPointsOf(
  pool: Reader,
  riderIds: readonly string[],
  scope: Scope,
  settings: AttentionSettings,
  asOf?: string,
  signal?: AbortSignal,
): Promise<Map<string, OpenPoints>> {
  const q = { asOf: asOf ?? null, settings, scope, riderIds };
  const perRule = await Promise.all(
    RULES.map(async (rule) => ({ rule, rows: byRider(await queryRows<Row>(pool, toNative(rule.openPoint.rows(q)), signal)) })),
  );
  return new Map(
    riderIds.map((id) => {
      const points = perRule.flatMap(({ rule, rows }) =>
        (rows.get(id) ?? []).map((row) => ({ rule: rule.name, words: rule.openPoint.sentence(row) })),
      );
      return [id, { points, any: points.length > 0 }];
    }),
  );
}
