// Assignments (equipment handed out), and what ends them: returns and exchanges. A rider's whole
// equipment history is simulated at once, so that the three tables agree.

import { NULL, row, text } from './bulk-load';
import type { Product, Variation } from './demo-products';
import { chance, int, pick, rngFor, STREAM, weighted, type Rng } from './demo-random';

import { DAY, HOUR, SECOND, timestamp } from './demo-time';
import type { World } from './demo-world';
import type { Assignment, Exchange, IdCursor, ProductReturn, RiderPlan } from './demo-types';

/** What happens to a drafted assignment; filled in while the rider's history is simulated. */
interface Draft {
  productId: number;
  variationId: number;
  assignedAt: number;
  assignedBy: number;
  method: 0 | 1;
  type: 'assign' | 'exchange';
  depth: number; // how many exchanges led to it
  deletedAt: number | null;
  returned?: { by: number; condition: string } | null; // null: soft-deleted without a return record
  exchange?: { to: Draft; exchangeType: string; replacementType: Exchange['replacementType']; by: number };
  id?: number;
}

const RETURN_CONDITIONS: ReadonlyArray<readonly [string, number]> = [
  ['Good', 50],
  ['Worn', 25],
  ['Damaged', 15],
  ['Missing parts', 10],
];
const EXCHANGE_KINDS: ReadonlyArray<readonly [readonly [string, Exchange['replacementType']], number]> = [
  [['Size change', 'Exchange'], 30],
  [['Damaged', 'Accident'], 20],
  [['Damaged', 'Exchange'], 15],
  [['Damaged', 'Lost'], 15],
  [['Upgrade', 'Exchange'], 15],
  [['Upgrade', 'Lost'], 5],
];

function drawProduct(rng: Rng, world: World): [Product, Variation] {
  const product = weighted(rng, world.productOdds);
  return [product, pick(rng, product.variations)];
}

/** The replacement handed out in an exchange, depending on why the item was exchanged. */
function replacementFor(rng: Rng, world: World, old: Draft, exchangeType: string): [number, number] {
  const product = world.products[old.productId - 1];
  if (exchangeType === 'Size change') {
    const others = product.variations.filter((v) => v.id !== old.variationId);
    return [product.id, pick(rng, others).id];
  }
  if (exchangeType === 'Upgrade') {
    const siblings = (world.productsByCategory.get(product.categoryId) ?? []).filter((p) => p.id !== product.id);
    const target = siblings.length > 0 ? pick(rng, siblings) : product;
    return [target.id, pick(rng, target.variations).id];
  }
  return chance(rng, 0.7) ? [product.id, old.variationId] : [product.id, pick(rng, product.variations).id];
}

/** Simulates a rider's equipment history: an onboarding kit, later hand-outs, returns and exchanges. */
export function planAssignments(
  world: World,
  riderId: number,
  joinedAt: number,
  ids: IdCursor,
): Pick<RiderPlan, 'assignments' | 'returns' | 'exchanges'> {
  const rng = rngFor(world.seed, STREAM.assignments, riderId);
  const drafts: Draft[] = [];
  const span = world.anchor - HOUR - joinedAt;
  const kit = int(rng, 2, 5); // handed out together on the first day
  const kitBy = pick(rng, world.appUsers).id;
  const kitMethod: 0 | 1 = chance(rng, 0.6) ? 1 : 0;
  const initial = int(rng, 4, 13);
  for (let i = 0; i < initial; i++) {
    const [product, variation] = drawProduct(rng, world);
    const onboarding = i < kit;
    drafts.push({
      productId: product.id,
      variationId: variation.id,
      assignedAt: onboarding ? joinedAt : joinedAt + Math.floor((rng() * span) / SECOND) * SECOND,
      assignedBy: onboarding ? kitBy : pick(rng, world.appUsers).id,
      method: onboarding ? kitMethod : chance(rng, 0.5) ? 1 : 0,
      type: 'assign',
      depth: 0,
      deletedAt: null,
    });
  }

  // Decide each draft's fate; exchanges append their replacement, which gets its own fate in turn.
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i];
    const left = world.anchor - d.assignedAt;
    const r = rng();
    if (left < 2 * DAY || r < 0.5) continue; // still with the rider
    const endsAt = d.assignedAt + int(rng, 1, Math.min(Math.floor(left / HOUR) - 1, 300 * 24)) * HOUR;
    d.deletedAt = endsAt;
    if (r < 0.82 || d.depth >= 2) {
      // Most returns are recorded; a few items were just soft-deleted (e.g. cleaned up by an admin).
      d.returned = chance(rng, 0.94) ? { by: pick(rng, world.appUsers).id, condition: weighted(rng, RETURN_CONDITIONS) } : null;
      continue;
    }
    const [exchangeType, replacementType] = weighted(rng, EXCHANGE_KINDS);
    const [productId, variationId] = replacementFor(rng, world, d, exchangeType);
    const by = pick(rng, world.appUsers).id;
    const to: Draft = {
      productId,
      variationId,
      assignedAt: endsAt,
      assignedBy: by,
      method: chance(rng, 0.5) ? 1 : 0,
      type: 'exchange',
      depth: d.depth + 1,
      deletedAt: null,
    };
    d.exchange = { to, exchangeType, replacementType, by };
    drafts.push(to);
  }

  // Ids follow time within the rider (the sort is stable, so ties keep creation order).
  drafts.sort((a, b) => a.assignedAt - b.assignedAt);
  for (const d of drafts) d.id = ++ids.assignment;
  const idOf = (d: Draft): number => {
    if (d.id === undefined) throw new Error('seedDemo: draft assignment without an id');
    return d.id;
  };
  const assignments: Assignment[] = [];
  const returns: ProductReturn[] = [];
  const exchanges: Exchange[] = [];
  for (const d of drafts) {
    const id = idOf(d);
    assignments.push({
      id,
      productId: d.productId,
      variationId: d.variationId,
      assignedAt: d.assignedAt,
      assignedBy: d.assignedBy,
      method: d.method,
      type: d.type,
      deletedAt: d.deletedAt,
    });
    if (d.deletedAt === null) continue;
    if (d.returned)
      returns.push({
        id: ++ids.return,
        assignmentId: id,
        returnedAt: d.deletedAt,
        returnedBy: d.returned.by,
        condition: d.returned.condition,
      });
    const e = d.exchange;
    if (e) {
      exchanges.push({
        id: ++ids.exchange,
        oldAssignmentId: id,
        newAssignmentId: idOf(e.to),
        exchangedAt: d.deletedAt,
        exchangeType: e.exchangeType,
        replacementType: e.replacementType,
        processedBy: e.by,
      });
    }
  }
  return { assignments, returns, exchanges };
}

// Row generators over the riders' plans, which need their assignments.

export function* assignmentRows(plans: Iterable<RiderPlan>) {
  for (const r of plans) {
    for (const a of r.assignments) {
      yield row([
        a.id,
        r.id,
        a.productId,
        a.variationId,
        timestamp(a.assignedAt),
        a.assignedBy,
        a.method,
        a.type,
        a.deletedAt === null ? NULL : timestamp(a.deletedAt),
        r.companyId,
      ]);
    }
  }
}

/** A rider's assignment by id (a return or an exchange keeps its rider, 3PL and items: migration 011). */
const assignmentOf = (r: RiderPlan, id: number): Assignment => {
  const found = r.assignments.find((a) => a.id === id);
  if (!found) throw new Error(`rider ${r.id} has no assignment ${id}`);
  return found;
};

export function* returnRows(plans: Iterable<RiderPlan>) {
  for (const r of plans) {
    for (const x of r.returns) {
      const a = assignmentOf(r, x.assignmentId);
      yield row([
        x.id,
        x.assignmentId,
        timestamp(x.returnedAt),
        x.returnedBy,
        text(x.condition),
        r.id,
        r.companyId,
        a.productId,
        a.variationId,
      ]);
    }
  }
}

export function* exchangeRows(plans: Iterable<RiderPlan>) {
  for (const r of plans) {
    for (const e of r.exchanges) {
      const [old, given] = [assignmentOf(r, e.oldAssignmentId), assignmentOf(r, e.newAssignmentId)];
      yield row([
        e.id,
        e.oldAssignmentId,
        e.newAssignmentId,
        timestamp(e.exchangedAt),
        text(e.exchangeType),
        e.replacementType,
        e.processedBy,
        r.id,
        r.companyId,
        old.productId,
        old.variationId,
        given.productId,
        given.variationId,
      ]);
    }
  }
}
