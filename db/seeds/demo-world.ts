// The world: the small reference tables (countries, companies, app users, patrollers, products,
// questions), built in memory once from one random stream, and read by every pass over the riders.

import { buildCountries } from './demo-countries';
import { buildCompanies, buildPeople, companyOdds, type Person } from './demo-people';
import { buildCategories, buildProducts, productsByCategory, type Product } from './demo-products';
import { buildQuestions } from './demo-questionnaire';
import { rngFor, STREAM } from './demo-random';
import type { Country, Question } from './demo-types';

export interface World {
  seed: number;
  /** Where the history ends: DemoOptions.anchor. */
  anchor: number;
  countries: Country[];
  companies: Person[];
  appUsers: Person[];
  patrollers: Person[];
  categories: Person[];
  products: Product[];
  productsByCategory: Map<number, Product[]>;
  questions: Question[];
  // Weighted choice tables, built once rather than per draw.
  countryOdds: ReadonlyArray<readonly [Country, number]>;
  companyOdds: ReadonlyArray<readonly [number, number]>;
  productOdds: ReadonlyArray<readonly [Product, number]>;
}

/** The draws come in a fixed order (people, then products, then questions): reordering them changes the data. */
export function buildWorld(seed: number, anchor: number): World {
  const rng = rngFor(seed, STREAM.world, 0);
  const countries = buildCountries();
  const companies = buildCompanies();
  const appUsers = buildPeople(rng, 50);
  const patrollers = buildPeople(rng, 200);
  // Patrollers work in one country each, round robin.
  for (const p of patrollers) countries[(p.id - 1) % countries.length].patrollers.push(p.id);

  const categories = buildCategories();
  const products = buildProducts(rng);
  const questions = buildQuestions(rng, countries);
  return {
    seed,
    anchor,
    countries,
    companies,
    appUsers,
    patrollers,
    categories,
    products,
    productsByCategory: productsByCategory(products),
    questions,
    countryOdds: countries.map((c) => [c, c.weight] as const),
    companyOdds: companyOdds(),
    productOdds: products.map((p) => [p, p.weight] as const),
  };
}
