import type { AttentionSettings } from '../config';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import type { Scope } from '../filters/scope';
import { RULES, type RuleName, type Words } from './index';

// A rider's open points: what each "Needs attention" rule (./index.ts) says of that rider, read once
// here for the printable report and the rider's page, and drawn by views/shared/open-points.ejs.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows as PostgreSQL returns them, read by the templates
export type Row = Record<string, any>;

/** One rider's open points: each rule's rows as sentences, in the rules' order. */
export interface OpenPoints {
  points: Array<{ rule: RuleName; words: Words }>;
  any: boolean;
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
