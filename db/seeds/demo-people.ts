// The named reference tables: companies (3PLs), app users and patrollers (product categories share
// their id-and-name shape), and the names of people, riders included.

import { row, text } from './bulk-load';
import { chance, pick, type Rng } from './demo-random';
import { ARABIC_FIRST_NAMES, ARABIC_LAST_NAMES, FIRST_NAMES, LAST_NAMES } from './names';

export interface Person {
  id: number;
  name: string;
}

// Free-text 3PL names: spaces, an ampersand and an apostrophe exercise the filters and URLs.
const COMPANIES: ReadonlyArray<readonly [string, number]> = [
  ['Swift & Co', 25],
  ["Road Runner's", 20],
  ['Desert Falcon Logistics', 20],
  ['Oasis Riders', 15],
  ['BlueCamel', 12],
  ['Al Noor Delivery Services', 8],
];

export function buildCompanies(): Person[] {
  return COMPANIES.map(([name], i) => ({ id: i + 1, name }));
}

/** How often each company's id is drawn for a rider. */
export function companyOdds(): ReadonlyArray<readonly [number, number]> {
  return COMPANIES.map(([, w], i) => [i + 1, w] as const);
}

export function personName(rng: Rng): string {
  // A few riders are registered in Arabic script.
  if (chance(rng, 0.04)) return `${pick(rng, ARABIC_FIRST_NAMES)} ${pick(rng, ARABIC_LAST_NAMES)}`;
  return `${pick(rng, FIRST_NAMES)} ${pick(rng, LAST_NAMES)}`;
}

/** `count` people with ids from 1, named in order from `rng`. */
export function buildPeople(rng: Rng, count: number): Person[] {
  return Array.from({ length: count }, (_, i) => ({ id: i + 1, name: personName(rng) }));
}

export function* namedRows(items: readonly Person[]) {
  for (const p of items) yield row([p.id, text(p.name)]);
}
