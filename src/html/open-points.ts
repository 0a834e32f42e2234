import type { AttentionSettings } from '../config';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import type { Scope } from '../filters/scope';
import * as attention from '../queries/attention';

// A rider's open points: what the "Needs attention" rules (src/queries/attention.ts) say of that rider,
// read once here for the printable report and the rider's page, and drawn by views/shared/open-points.ejs.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows as PostgreSQL returns them, read by the templates
export type Row = Record<string, any>;

/** The rules' rows of one rider: failing checks, items past their exchange day, not checked lately, own Lost and Accident exchanges. */
export interface OpenPoints {
  failing?: Row;
  overdue: Row[];
  unchecked?: Row;
  losses: Row[];
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
 * The open points of these riders as of the end of `asOf` (today without it), within the scope: four
 * queries whatever the number of riders. Every rider asked for has an entry, empty when nothing is open.
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
  const run = (builder: Parameters<typeof toNative>[0]) => queryRows<Row>(pool, toNative(builder), signal).then(byRider);
  const [failing, overdue, unchecked, losses] = await Promise.all([
    run(attention.failingChecks(q)),
    run(attention.overdueItems(q)),
    run(attention.unchecked(q)),
    run(attention.riderLosses(q)),
  ]);
  return new Map(
    riderIds.map((id) => {
      const points = {
        failing: failing.get(id)?.[0],
        overdue: overdue.get(id) ?? [],
        unchecked: unchecked.get(id)?.[0],
        losses: losses.get(id) ?? [],
      };
      const any = Boolean(points.failing || points.unchecked || points.overdue.length || points.losses.length);
      return [id, { ...points, any }];
    }),
  );
}
