import type { Request, Response } from 'express';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { defineParams } from '../filters/define';
import type { Scope } from '../filters/scope';
import { queryValidator } from '../filters/validate';
import { clientSignal } from '../http/client-signal';
import { HttpError } from '../http/errors';
import { sendProblem } from '../http/problem';
import * as owners from '../rules/owners';
import * as choices from '../queries/choices';
import * as riderEquipment from '../queries/rider-equipment';
import type { Choice } from './list-params';
import { ShortMemo } from './memo';
import { scopeOf } from '../html/scope';

// What the filter forms offer by name (3PLs, items, patrollers, a few columns' values) and the names their chips show for
// the ids in a URL, read from the database (the offered ones kept a while per scope: keptChoices): a
// supervisor limited to one 3PL gets only that 3PL's. Riders are too many to list: /admin/lookup/riders
// suggests them as one types.

export interface ItemRow {
  product_id: string;
  variation_id: string;
  product: string;
  variation: string;
  category: string;
}

export type Named = { id: string; name: string };

export interface ChoiceSource {
  companies(scope: Scope, signal: AbortSignal): Promise<string[]>;
  items(signal: AbortSignal): Promise<ItemRow[]>;
  patrollers(scope: Scope, signal: AbortSignal): Promise<Named[]>;
  /** The usernames of the supervisors who see this scope's riders (rows may be given to them). */
  supervisors(scope: Scope, signal: AbortSignal): Promise<string[]>;
  /** The values present in one of a few small columns (a return's condition, an exchange's type). */
  values(name: choices.ValueColumn, scope: Scope, signal: AbortSignal): Promise<string[]>;
  rider(id: string, scope: Scope, signal: AbortSignal): Promise<Named | undefined>;
  patroller(id: string, scope: Scope, signal: AbortSignal): Promise<Named | undefined>;
  /** Riders whose name holds `term` or whose ID is `term`, by name. */
  riders(term: string, scope: Scope, limit: number, signal: AbortSignal): Promise<Array<Named & { company: string }>>;
}

export function choiceSource(pool: Reader): ChoiceSource {
  return {
    companies: async (scope, signal) =>
      (await queryRows<{ name: string }>(pool, toNative(riderEquipment.companyNames(scope)), signal)).map((row) => row.name),
    items: (signal) => queryRows<ItemRow>(pool, toNative(choices.items()), signal),
    patrollers: (scope, signal) => queryRows<Named>(pool, toNative(choices.patrollers(scope)), signal),
    supervisors: async (scope, signal) =>
      (await queryRows<{ username: string }>(pool, toNative(owners.assignees(scope)), signal)).map((row) => row.username),
    values: async (name, scope, signal) =>
      (await queryRows<{ value: string }>(pool, toNative(choices.distinctValues(name, scope)), signal)).map((row) => row.value),
    rider: async (id, scope, signal) => (await queryRows<Named>(pool, toNative(riderEquipment.riderById(id, scope)), signal))[0],
    patroller: async (id, scope, signal) => (await queryRows<Named>(pool, toNative(choices.patrollerById(id, scope)), signal))[0],
    riders: (term, scope, limit, signal) => queryRows(pool, toNative(choices.riderSuggestions(term, scope, limit)), signal),
  };
}

/** How long the filter forms' choices (3PLs, items, patrollers, a column's values) stand before a page reads them again. */
export const CHOICES_MS = 30000;

/**
 * `source` with the choices every list page reads the same kept CHOICES_MS per scope: a new 3PL, item
 * or patroller shows in the forms within that time. A rider, a person by id and the look-up read each time.
 */
export function keptChoices(source: ChoiceSource, ms = CHOICES_MS): ChoiceSource {
  const memo = new ShortMemo<unknown>(ms);
  const scoped = (scope: Scope) => scope.company_id ?? '*';
  const kept = <T>(key: string, read: () => Promise<T>) => memo.get(key, read) as Promise<T>;
  return {
    ...source,
    companies: (scope, signal) => kept(`companies ${scoped(scope)}`, () => source.companies(scope, signal)),
    items: (signal) => kept('items', () => source.items(signal)),
    patrollers: (scope, signal) => kept(`patrollers ${scoped(scope)}`, () => source.patrollers(scope, signal)),
    values: (name, scope, signal) => kept(`values ${name} ${scoped(scope)}`, () => source.values(name, scope, signal)),
  };
}

/** "Product / Variation", as the lists show an item. */
export const itemLabel = (item: Pick<ItemRow, 'product' | 'variation'>) => `${item.product} / ${item.variation}`;

/**
 * The item picker's groups: one per category, each product first as "any variation", then its
 * variations. Option values are `product:variation` (see Picker in form.ts).
 */
export function itemGroups(items: ItemRow[]): Array<{ label: string; options: Choice[] }> {
  const groups = new Map<string, Choice[]>();
  let lastProduct: string | undefined;
  for (const item of items) {
    const options = groups.get(item.category) ?? groups.set(item.category, []).get(item.category)!;
    if (item.product_id !== lastProduct) {
      options.push({ value: `${item.product_id}:`, label: `${item.product} (any variation)` });
      lastProduct = item.product_id;
    }
    options.push({ value: `${item.product_id}:${item.variation_id}`, label: itemLabel(item) });
  }
  return [...groups].map(([label, options]) => ({ label, options }));
}

/** "Name (id)", how a chip and a suggestion name a person. */
export const personLabel = (person: Named) => `${person.name} (${person.id})`;

const lookupParams = defineParams({
  q: { type: 'text', label: 'Rider ID or name', description: 'Part of a rider name in any letter case, or a rider ID.' },
});
const validateLookup = queryValidator(lookupParams);
export const SUGGESTIONS = 20;
/** Whether the lookup asks the database for `q` (trimmed, one-spaced): two characters at least, or an ID. */
export const lookupAsks = (q: string) => q.length >= 2 || /^[0-9]+$/.test(q);

/**
 * GET /admin/lookup/riders?q=...: up to 20 riders whose name holds `q` or whose ID is `q`, within the
 * supervisor's 3PL, as JSON `[{ value: id, label: "Name (id) · 3PL" }]` for a datalist. Fewer than
 * two characters: none (every rider would match).
 */
export function riderLookupHandler(source: ChoiceSource) {
  return async (req: Request, res: Response): Promise<void> => {
    let q: string;
    try {
      q = (await validateLookup(req.query as Record<string, unknown>)).q?.trim().replace(/\s+/g, ' ') ?? '';
    } catch (error) {
      // A script asked: the same problem+json as the API, not an HTML page.
      if (error instanceof HttpError && error.status === 400) return sendProblem(res, error);
      throw error;
    }
    const rows = lookupAsks(q) ? await source.riders(q, scopeOf(res), SUGGESTIONS, clientSignal(res)) : [];
    res
      .set('Cache-Control', 'no-store')
      .json(rows.map((row) => ({ value: String(row.id), label: `${personLabel(row)} · ${row.company}` })));
  };
}
