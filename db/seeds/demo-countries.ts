// Countries: the riders' markets, each with its own patrollers and questionnaire.

import { row, text } from './bulk-load';
import type { Country } from './demo-types';

const COUNTRIES: ReadonlyArray<readonly [string, string, number]> = [
  ['AE', 'United Arab Emirates', 30],
  ['SA', 'Saudi Arabia', 25],
  ['KW', 'Kuwait', 10],
  ['QA', 'Qatar', 9],
  ['BH', 'Bahrain', 5],
  ['OM', 'Oman', 5],
  ['EG', 'Egypt', 11],
  ['JO', 'Jordan', 5],
];

/** The countries, without patrollers or questions yet. */
export function buildCountries(): Country[] {
  return COUNTRIES.map(([code, name, weight], i) => ({ id: i + 1, code, name, weight, patrollers: [], questions: [] }));
}

export function* countryRows(countries: readonly Country[]) {
  for (const c of countries) yield row([c.id, c.code, text(c.name)]);
}
