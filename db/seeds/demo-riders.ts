// Riders, and the passes over them: each pass rebuilds every rider's plan (who they are, their
// equipment history, their patrol checks) from random streams seeded by (seed, rider id), so that
// the passes agree without keeping anything from the previous one.

import { row, text, type Progress } from './bulk-load';
import { planAssignments } from './demo-assignments';

import { personName } from './demo-people';
import { planChecks } from './demo-patrol-checks';
import { int, rngFor, STREAM, weighted } from './demo-random';
import { DAY, SECOND } from './demo-time';
import type { World } from './demo-world';
import type { IdCursor, RiderPlan } from './demo-types';

const HISTORY_DAYS = 540; // ~18 months back from the anchor
const FIRST_RIDER_ID = 100001;

function riderBase(world: World, index: number): Omit<RiderPlan, 'assignments' | 'returns' | 'exchanges' | 'checks'> {
  const id = FIRST_RIDER_ID + index;
  const rng = rngFor(world.seed, STREAM.rider, id);
  const country = weighted(rng, world.countryOdds);
  const companyId = weighted(rng, world.companyOdds);
  const joinedAt = world.anchor - int(rng, 20, HISTORY_DAYS) * DAY - int(rng, 0, 86399) * SECOND;
  return { index, id, name: personName(rng), companyId, country, joinedAt };
}

/**
 * Every rider's plan, in id order. `needs` says which parts of the history a pass writes; the others
 * are left empty (their draws come from random streams of their own, so skipping them changes nothing).
 */
export function* walkRiders(
  world: World,
  riders: number,
  needs: { assignments?: boolean; checks?: boolean },
  progress: Progress,
): Generator<RiderPlan> {
  const ids: IdCursor = { assignment: 0, return: 0, exchange: 0, check: 0 };
  for (let index = 0; index < riders; index++) {
    const base = riderBase(world, index);
    const history = needs.assignments
      ? planAssignments(world, base.id, base.joinedAt, ids)
      : { assignments: [], returns: [], exchanges: [] };
    const checks = needs.checks ? planChecks(world, base.id, base.country, base.joinedAt, ids) : [];
    progress.done = index;
    yield { ...base, ...history, checks };
  }
  progress.done = riders;
}

// The item counts the assignments trigger would keep, written with the rider (the trigger is off
// during the load), so riders are copied once, frozen, and never updated afterwards. Needs the
// plans' assignments.
export function* riderRows(plans: Iterable<RiderPlan>) {
  for (const r of plans) {
    const active = r.assignments.filter((a) => a.deletedAt === null).length;
    yield row([r.id, text(r.name), r.companyId, r.country.id, active, r.assignments.length - active]);
  }
}
