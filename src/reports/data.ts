import type { Knex } from 'knex';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import type { Scope } from '../filters/scope';
import type { AttentionSettings } from '../config';
import * as assignments from '../queries/assignments';
import * as patrolChecks from '../queries/patrol-checks';
import * as productExchanges from '../queries/product-exchanges';
import * as productReturns from '../queries/product-returns';
import * as riderEquipment from '../queries/rider-equipment';
import { byRider, openPointsOf, type OpenPoints, type Row } from '../rules/open-points';

export type { Row } from '../rules/open-points';

/** Everything one rider's report prints: the header, the four sections and the totals line. */
export interface RiderReport {
  rider: Row;
  held: Row[];
  assignments: Row[];
  returns: Row[];
  exchanges: Row[];
  checks: Row[];
  totals: { held: number; assignments: number; returns: number; exchanges: number; checks: number; checksPassed: number };
  /** What "Needs attention" says of this rider, as the rider's page shows it too (src/rules/open-points.ts). */
  openPoints: OpenPoints;
}

const run = (pool: Reader, builder: Knex.QueryBuilder, signal?: AbortSignal) => queryRows<Row>(pool, toNative(builder), signal);

/**
 * The riders the filters keep, by id, after rider `after` when given, up to `limit` (one more is
 * read, so the caller can tell that more follow). A range of an index whatever the fleet's size.
 */
export async function findRiders(
  pool: Reader,
  values: riderEquipment.Filters,
  limit: number,
  signal?: AbortSignal,
  after?: string,
): Promise<Row[]> {
  const riders = riderEquipment.reportRiders(values);
  if (after !== undefined) riders.where('r.id', '>', after);
  return run(pool, riderEquipment.reportColumns(riders).limit(limit + 1), signal);
}

/**
 * The reports of these riders, in their order. Four queries whatever the number of riders, each
 * the builder the admin lists use, limited to the riders, the scope and the end of `asOf`.
 */
export async function loadReports(
  pool: Reader,
  riders: Row[],
  scope: Scope,
  settings: AttentionSettings,
  asOf?: string,
  signal?: AbortSignal,
): Promise<RiderReport[]> {
  if (riders.length === 0) return [];
  const ids = riders.map((r) => String(r.id));
  const openPoints = await openPointsOf(pool, ids, scope, settings, asOf, signal);
  const [assigned, returned, exchanged, checked] = await Promise.all([
    run(pool, assignments.reportRows(ids, scope, asOf), signal).then(byRider),
    run(pool, productReturns.reportRows(ids, scope, asOf), signal).then(byRider),
    run(pool, productExchanges.reportRows(ids, scope, asOf), signal).then(byRider),
    run(pool, patrolChecks.reportRows(ids, scope, asOf), signal).then(byRider),
  ]);
  return riders.map((rider) => {
    const id = String(rider.id);
    const report = {
      rider,
      held: (assigned.get(id) ?? []).filter((a) => a.held),
      assignments: assigned.get(id) ?? [],
      returns: returned.get(id) ?? [],
      exchanges: exchanged.get(id) ?? [],
      checks: checked.get(id) ?? [],
    };
    return {
      ...report,
      openPoints: openPoints.get(id)!,
      totals: {
        held: report.held.length,
        assignments: report.assignments.length,
        returns: report.returns.length,
        exchanges: report.exchanges.length,
        checks: report.checks.length,
        checksPassed: report.checks.filter((c) => c.id_valid && c.plate_valid && c.sticker_valid).length,
      },
    };
  });
}
