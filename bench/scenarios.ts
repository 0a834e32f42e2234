// What is measured: the request scenarios and, for each, the SQL the service runs for it,
// taken from the service's own compiled code (operations[path].build + toNative), never copied.
import type { Knex } from 'knex';
import { allOperations, operations, toNative, type NativeQuery } from '../src/bench-entry';
import { toPgbenchStatement, type PgbenchStatement } from './pgbench-sql';
import type { BareRoute } from './bare-server';

export type OperationPath = keyof typeof operations;
type AnyOperation = {
  validate: (query: Record<string, unknown>) => Promise<Record<string, unknown>>;
  build: (values: Record<string, unknown>) => Knex.QueryBuilder | Knex.Raw;
};

/** One week in the middle of the demo's history (it spans May 2025 to October 2026). */
export const WEEK = { from: '2026-06-01', to: '2026-06-07' };
export const PER_PAGE = 100;

export interface IdRange {
  min: number;
  max: number;
}

export interface LoadScenario {
  group: 'rider' | 'date' | 'page';
  path: OperationPath;
  label: string;
  /** Fixed query parameters. */
  query: Record<string, string>;
  /** A parameter drawn per request, uniformly from existing ids (pgbench: `\set name random(min, max)`). */
  random?: { param: string; variable: string; range: IdRange };
  /** The rider target does not apply (the questionnaire has no rider filter). */
  noRiderTarget?: boolean;
  /** The naive page query to compare with (page scenarios). */
  naive?: { page: number };
}

/** What the page scenarios need to know of the list: its last pages, unfiltered and with filters. */
export interface PageInfo {
  last: number;
  /** The last page with active=1. */
  activeLast: number;
  /** A 3PL's name, and its last page. */
  company: string;
  companyLast: number;
}

/** The list's query strings whose last page the page scenarios need (see PageInfo). */
export const pageFilters = (company: string) => ({ all: {}, active: { active: '1' }, company: { '3pl_name': company } });

export function loadScenarios(ranges: { riders: IdRange; countries: IdRange }, pages: PageInfo): LoadScenario[] {
  const rider = { param: 'rider_id', variable: 'rider', range: ranges.riders };
  const week = (name: string) => ({ [`${name}_date_from`]: WEEK.from, [`${name}_date_to`]: WEEK.to });
  const weekLabel = (name: string) => `${name}_date ${WEEK.from}..${WEEK.to}`;
  // From the registry: every operation with a rider filter gets a random-rider scenario, and every one
  // with a date range a one-week scenario, so a new operation is measured without a word here.
  const paramsOf = (path: string) => Object.keys(allOperations.find((op) => op.path === path)!.params);
  const paths = allOperations.map(({ path }) => path as OperationPath);
  const byRider = paths.filter((path) => paramsOf(path).includes('rider_id'));
  const byWeek = paths.flatMap((path) =>
    paramsOf(path)
      .filter((name) => name.endsWith('_date_from'))
      .map((from) => ({ path, name: from.slice(0, -'_date_from'.length) })),
  );
  return [
    ...byRider.map((path): LoadScenario => ({ group: 'rider', path, label: 'random rider_id', query: {}, random: rider })),
    // An operation without a rider filter: the questionnaire, by country.
    ...paths
      .filter((path) => !byRider.includes(path) && paramsOf(path).includes('country_id'))
      .map((path): LoadScenario => ({
        group: 'rider',
        path,
        label: 'random country_id (no rider filter)',
        query: {},
        random: { param: 'country_id', variable: 'country', range: ranges.countries },
        noRiderTarget: true,
      })),
    // One with neither: the whole answer, unfiltered.
    ...paths
      .filter((path) => !byRider.includes(path) && !paramsOf(path).includes('country_id'))
      .map((path): LoadScenario => ({ group: 'rider', path, label: 'no filter (the whole answer)', query: {}, noRiderTarget: true })),
    ...byWeek.map(({ path, name }): LoadScenario => ({ group: 'date', path, label: weekLabel(name), query: week(name) })),
    // The first two are page 1 and the last page without filters (compared with each other and
    // with the naive query); then the last pages with each filter.
    {
      group: 'page',
      path: '/rider-equipment-list',
      label: `page 1, per_page=${PER_PAGE}`,
      query: { per_page: String(PER_PAGE), page: '1' },
      naive: { page: 1 },
    },
    {
      group: 'page',
      path: '/rider-equipment-list',
      label: `last page (${pages.last}), per_page=${PER_PAGE}`,
      query: { per_page: String(PER_PAGE), page: String(pages.last) },
      naive: { page: pages.last },
    },
    {
      group: 'page',
      path: '/rider-equipment-list',
      label: `active=1, last page (${pages.activeLast})`,
      query: { active: '1', per_page: String(PER_PAGE), page: String(pages.activeLast) },
    },
    {
      group: 'page',
      path: '/rider-equipment-list',
      label: `3pl_name=${pages.company}, last page (${pages.companyLast})`,
      query: { '3pl_name': pages.company, per_page: String(PER_PAGE), page: String(pages.companyLast) },
    },
  ];
}

export const STREAM_PATHS: OperationPath[] = ['/patrollerchecks', '/assign-list', '/product-returns', '/product-exchanges'];

/** What a load generator requests: a fixed path, or one with a parameter drawn per request. */
export interface LoadTarget {
  /** The path and fixed query, ending in `?` or `&` when a drawn parameter follows. */
  prefix: string;
  random?: { param: string; min: number; max: number };
}

export function loadTarget(scenario: LoadScenario): LoadTarget {
  const fixed = new URLSearchParams(scenario.query).toString();
  const path = `/v2${scenario.path}`;
  const random = scenario.random;
  if (!random) return { prefix: fixed ? `${path}?${fixed}` : path };
  return { prefix: `${path}?${fixed}${fixed ? '&' : ''}`, random: { param: random.param, ...random.range } };
}

/** A request path for one draw of the target's random parameter (uniform over [min, max]). */
export function pathMaker(target: LoadTarget): () => string {
  const { prefix, random } = target;
  if (!random) return () => prefix;
  return () => `${prefix}${random.param}=${random.min + Math.floor(Math.random() * (random.max - random.min + 1))}`;
}

// An id no dataset holds, in the random parameter's place: its $n positions become the pgbench variable.
const SENTINEL = '8765432109876543210';

/** The service's SQL for a query string, through its own validator and builder. */
export async function serviceSql(path: OperationPath, query: Record<string, string>): Promise<NativeQuery> {
  const operation = operations[path] as unknown as AnyOperation;
  // A copy: the validator's sanitizers write the typed values back into the object they are given.
  return toNative(operation.build(await operation.validate({ ...query })));
}

export interface PgbenchScript extends PgbenchStatement {
  script: string;
  /** The SQL with a sample value, for EXPLAIN. */
  sample: NativeQuery;
}

/** The positions ($n - 1) of the SQL's values that the scenario's drawn parameter fills (none without one). */
function drawnPositions(native: NativeQuery, random: LoadScenario['random']): number[] {
  if (!random) return [];
  const positions = native.values.flatMap((value, i) => (String(value) === SENTINEL ? [i] : []));
  if (positions.length === 0) throw new Error(`the ${random.param} value did not reach the SQL`);
  return positions;
}

/** The service's SQL for a scenario, with the drawn parameter given the sentinel value. */
function scenarioSql(scenario: LoadScenario): Promise<NativeQuery> {
  const query = scenario.random ? { ...scenario.query, [scenario.random.param]: SENTINEL } : scenario.query;
  return serviceSql(scenario.path, query);
}

function scriptFor(native: NativeQuery, random: LoadScenario['random']): PgbenchScript {
  const variables = new Map(drawnPositions(native, random).map((i) => [i + 1, random!.variable]));
  const statement = toPgbenchStatement(native.text, native.values, variables);
  const header = random ? `\\set ${random.variable} random(${random.range.min}, ${random.range.max})\n` : '';
  const mid = random ? String(Math.floor((random.range.min + random.range.max) / 2)) : '';
  const sample = { text: native.text, values: native.values.map((v) => (String(v) === SENTINEL ? mid : v)) };
  return { ...statement, script: `${header}${statement.sql};\n`, sample };
}

export async function serviceScript(scenario: LoadScenario): Promise<PgbenchScript> {
  return scriptFor(await scenarioSql(scenario), scenario.random);
}

/**
 * The naive page, for comparison: each rider's entry, products and all, is built in the row source
 * under OFFSET, so every skipped rider is built and thrown away, and the total is a full count of
 * riders with any assignment (a semi-join over all assignments). The same JSON as the service's page.
 */
export function naivePageScript(page: number, perPage = PER_PAGE): PgbenchScript {
  const datetime = (c: string) => `to_char(${c}, 'YYYY-MM-DD HH24:MI:SS')`;
  const text = `SELECT json_build_array(json_build_object(
      'current_page', $1::int,
      'data', COALESCE((SELECT json_agg(e.entry ORDER BY e.id) FROM (
        SELECT r.id, json_build_object('rider_id', r.id::text, '3pl_name', c.name, 'country_code', co.code,
          'products', (SELECT json_agg(json_build_object(
              'equipment_id', a.product_id, 'variation_id', a.variation_id, 'equipment_name', p.name,
              'equipment_variation_name', v.name, 'assign_date', ${datetime('a.assigned_at')},
              'assign_type', a.assign_type, 'return_date', ${datetime('a.deleted_at')},
              'active', a.deleted_at IS NULL) ORDER BY a.assigned_at, a.id)
            FROM assignments a JOIN products p ON p.id = a.product_id JOIN product_variations v ON v.id = a.variation_id
            WHERE a.rider_id = r.id)) AS entry
        FROM riders r JOIN companies c ON c.id = r.company_id JOIN countries co ON co.id = r.country_id
        WHERE EXISTS (SELECT 1 FROM assignments a WHERE a.rider_id = r.id)
        ORDER BY r.id OFFSET $2 LIMIT $3) AS e), '[]'::json),
      'total', t.total,
      'per_page', $3::int,
      'last_page', GREATEST(1, CEIL(t.total::numeric / $3::int))::int))::text AS json
    FROM (SELECT count(*) AS total FROM riders r JOIN companies c ON c.id = r.company_id
          WHERE EXISTS (SELECT 1 FROM assignments a WHERE a.rider_id = r.id)) AS t`;
  return scriptFor({ text, values: [page, (page - 1) * perPage, perPage] }, undefined);
}

/**
 * The bare server's route for a scenario (see bare-server.ts): the service's compiled SQL for it, with
 * the positions the drawn parameter fills. Only for answers the service reads at once (rider-bounded
 * and pages); whole-table answers stream through COPY in the service.
 */
export async function bareRoute(scenario: LoadScenario, index: number): Promise<BareRoute> {
  const native = await scenarioSql(scenario);
  const positions = drawnPositions(native, scenario.random);
  return {
    key: `/v2${scenario.path}?${new URLSearchParams(scenario.query).toString()}`,
    param: scenario.random?.param,
    positions,
    name: `bare_${index}`,
    text: native.text,
    values: native.values.map((value, i) => (positions.includes(i) ? null : value)),
    array: operations[scenario.path].stream,
  };
}
