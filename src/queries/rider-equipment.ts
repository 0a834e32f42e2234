import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { applyFilters } from '../filters/apply';
import { applyScope, type Scope } from '../filters/scope';
import { defineParams, hookParam, type ParamValues } from '../filters/define';
import { company, riderId } from '../filters/common';
import { jsonObject, jsonObjectAsText, jsonObjectAsTextAround } from '../wire/shape';
import { EquipmentEntry, RIDER_PAGE_SIZE, RiderEquipmentEntry, RiderEquipmentPage } from '../wire/shapes';
import { datetime, held } from '../wire/sql-fragments';
import { byCompany, textKey, type ListSort } from './keyset';

export const params = defineParams({
  rider_id: riderId('r.id', 'Only this rider.'),
  '3pl_name': company(),
  // Applied by the query itself (it picks the kept counts and entries, see kind()); the hook serves
  // the reports, which take riders who hold or returned some by the same counts.
  active: hookParam(
    {
      type: 'boolean',
      label: 'Active',
      description: '1: only equipment still held, and riders holding some; 0: only returned equipment, and riders who returned some.',
      form: {
        choices: [
          { value: '1', label: 'Holding items' },
          { value: '0', label: 'Returned items' },
        ],
      },
    },
    (builder, active) => builder.whereRaw(kind({ active }).flag),
  ),
  page: {
    type: 'integer',
    min: 1,
    max: 999999999,
    default: 1,
    label: 'Page',
    description: 'Which page, from 1. A page past the end has an empty data array.',
  },
  per_page: {
    type: 'integer',
    ...RIDER_PAGE_SIZE,
    label: 'Per page',
    description: `Riders per page, ${RIDER_PAGE_SIZE.min} to ${RIDER_PAGE_SIZE.max}.`,
  },
});

export type Filters = ParamValues<typeof params> & Scope;

/** The assignments of rider `r` that the filters keep. */
function assignmentsOf(values: Filters) {
  const builder = sql('assignments as a').whereRaw('a.rider_id = r.id');
  if (values.active !== undefined) builder.whereRaw(values.active ? held.assignment() : held.returned());
  return builder;
}

/** Which kept flag, count and entry the `active` filter reads (migrations 002 and 006). */
function kind(values: Filters) {
  if (values.active === true) return { flag: held.riderHolding, count: 'with_active', entry: 'active_entry' };
  if (values.active === false) return { flag: held.riderReturned, count: 'with_returned', entry: 'returned_entry' };
  return { flag: held.riderWithAny, count: 'with_items', entry: 'all_entry' };
}

/**
 * Riders with at least one kept assignment; no columns chosen yet. Shared by the count and the page.
 * The item counts kept on riders (migration 002) answer "has any / active / returned equipment"
 * from a partial index; the conditions are literal so the planner can match those indexes.
 * The 3PL join is a LEFT JOIN so that, without a 3PL filter, the planner drops it.
 */
export function filtered(values: Filters) {
  const builder = sql('riders as r').leftJoin('companies as c', 'c.id', 'r.company_id').whereRaw(kind(values).flag);
  return applyScope(applyFilters(builder, params, values, ['rider_id', '3pl_name']), values);
}

/**
 * Rider `r`'s entry in `data` (`r`, `c` its 3PL, `co` its country): kept ready in rider_list_entries
 * when its dates were formatted in this session's time zone, else built here from the assignments
 * (the same text; the tests compare them).
 */
function entryOf(values: Filters) {
  const products = assignmentsOf(values)
    .join('products as p', 'p.id', 'a.product_id')
    .join('product_variations as v', 'v.id', 'a.variation_id')
    .select(sql.raw(`json_agg(${jsonObject(EquipmentEntry)} ORDER BY a.assigned_at, a.id)`));
  const built = jsonObjectAsText(RiderEquipmentEntry, { overrides: { products: '?' } });
  return sql.raw(
    `CASE WHEN (SELECT zone FROM rider_list_zone) = current_setting('TimeZone')
       THEN (SELECT k.${kind(values).entry} FROM rider_list_entries k WHERE k.rider_id = r.id)
       ELSE ${built} END`,
    [products],
  );
}

/**
 * The one 3PL the filters and the scope leave, as a scalar subquery (3PL names are unique, so a
 * name and a scope give at most one); undefined when neither limits the 3PL.
 */
function onlyCompany(values: Filters) {
  if (values['3pl_name'] === undefined && !values.company_id) return undefined;
  return applyScope(applyFilters(sql('companies as c'), params, values, ['3pl_name']), values, 'c.id').select('c.id');
}

/**
 * The ids of the page's riders without a rider filter, from the kept blocks (migration 006): their
 * running sums give the block holding the page's first rider and how many of that block's riders
 * come before it, so only that block onwards is read, whatever the page. Also the total.
 */
function keptPage(values: Filters, offset: number, perPage: number) {
  const { flag, count } = kind(values);
  const company = onlyCompany(values);
  const blocks = sql('rider_list_blocks as b')
    .select('b.block', sql.raw(`sum(b.${count})::bigint AS n`))
    .groupBy('b.block');
  const riders = sql('riders as r').select('r.id').whereRaw(flag).whereRaw('r.id >= (SELECT first_id FROM start)');
  if (company) {
    blocks.where('b.company_id', company);
    riders.where('r.company_id', company.clone());
  }
  const ctes = sql.raw(
    `WITH blocks AS ?,
     placed AS (SELECT block, n, sum(n) OVER (ORDER BY block) - n AS before FROM blocks),
     start AS (SELECT block << 10 AS first_id, ?::bigint - before AS skip FROM placed
                WHERE before <= ?::bigint AND ?::bigint < before + n ORDER BY block LIMIT 1)`,
    [blocks, offset, offset, offset],
  );
  // The page size is written into the SQL (a validated whole number, and already part of the
  // statement's shape): as a parameter, PostgreSQL's generic plan would assume a tenth of all riders
  // and hash-join every rider; as a literal the generic plan is the custom one, so after a few runs
  // a prepared statement is no longer planned on every request.
  if (!Number.isInteger(perPage) || perPage < 1) throw new TypeError(`per_page must be a positive whole number, not ${perPage}`);
  const ids = sql.raw(`(SELECT q.id FROM ? AS q ORDER BY q.id OFFSET (SELECT skip FROM start) LIMIT ${perPage})`, [riders]);
  const total = sql.raw('(SELECT coalesce(sum(n), 0)::bigint AS total FROM blocks)');
  return { ctes, ids, total };
}

/**
 * The page envelope `[{current_page, data, total, per_page, last_page}]` as rows of JSON text, in
 * order: the envelope up to the `[` of `data`, one row per rider entry (by rider id), and the rest
 * from its `]`. Joined with `, ` between entries (see answerPieces) they are byte for byte the
 * json_build_array(json_build_object(...))::text of the page; no row holds the whole ~250 KB page,
 * which PostgreSQL would build and Node.js decode and encode again as one large value each time.
 */
export function wirePage(values: Filters) {
  const page = values.page ?? 1;
  const perPage = values.per_page ?? RIDER_PAGE_SIZE.default;
  const offset = (page - 1) * perPage;
  // One rider: filtered and counted directly (one index lookup). Otherwise the kept blocks.
  const { ctes, ids, total } =
    values.rider_id !== undefined
      ? {
          ctes: undefined,
          ids: filtered(values).select('r.id').orderBy('r.id').limit(perPage).offset(offset),
          total: filtered(values).count({ total: '*' }),
        }
      : keptPage(values, offset, perPage);
  const entries = sql
    .from(sql.raw('? AS page_ids', [ids]))
    .join('riders as r', 'r.id', 'page_ids.id')
    .join('companies as c', 'c.id', 'r.company_id')
    .join('countries as co', 'co.id', 'r.country_id')
    .select('r.id', sql.raw('? AS entry', [entryOf(values)]));
  const { head, tail } = jsonObjectAsTextAround(RiderEquipmentPage, 'data', { before: '[', after: ']' });
  return sql.raw(
    `${ctes ? '? ' : ''}SELECT x.part AS json FROM (
       SELECT 0 AS o, 0::bigint AS id, ${head} AS part
       UNION ALL SELECT 1, d.id, d.entry FROM ? AS d
       UNION ALL SELECT 2, 0, ${tail} FROM ? AS t) AS x
     ORDER BY x.o, x.id`,
    [...(ctes ? [ctes] : []), page, entries, perPage, perPage, total],
  );
}

// ---------------------------------------------------------------------------------------------
// Admin pages: the same filters without the API's paging (the admin pages page with their own
// parameters), the list columns, one rider, the rider search and the 3PL names for the forms.

export const adminParams = defineParams({ rider_id: params.rider_id, '3pl_name': params['3pl_name'], active: params.active });

/** The list's columns, added to a builder from filtered(): each rider with the equipment the filters keep. */
export function adminColumns(builder: Knex.QueryBuilder, values: Filters) {
  const equipment = assignmentsOf(values)
    .join('products as p', 'p.id', 'a.product_id')
    .join('product_variations as v', 'v.id', 'a.variation_id')
    .select(
      sql.raw(`json_agg(json_build_object(
      'product', p.name, 'variation', v.name,
      'assigned_at', ${datetime('a.assigned_at')}, 'returned_at', ${datetime('a.deleted_at')}) ORDER BY a.assigned_at, a.id)`),
    );
  return builder
    .join('countries as co', 'co.id', 'r.country_id')
    .select(
      'r.id as rider_id',
      'r.name as rider_name',
      'c.name as company',
      'co.code as country',
      sql.raw('(?) AS equipment', [equipment]),
    );
}

/** One rider with 3PL and country (none when the scope excludes the rider). */
export function riderById(id: string, scope: Scope = {}) {
  return applyScope(sql('riders as r'), scope)
    .join('companies as c', 'c.id', 'r.company_id')
    .join('countries as co', 'co.id', 'r.country_id')
    .where('r.id', id)
    .select('r.id', 'r.name', 'c.name as company', 'co.code as country_code', 'co.name as country_name');
}

/** The words of a search term: "Malik, Reem" and "Malik Reem" are the words Malik and Reem. */
export const searchWords = (term: string) => term.split(/[\s,]+/).filter(Boolean);

/** Whether a term can find a rider by name: one of its words has two letters (one pair to look up). */
export const searchableByName = (term: string) => searchWords(term).some((word) => [...word].length >= 2);

// The term's bigram that the fewest riders' names hold (kept_rider_name_gram_counts; a bigram no name
// holds: none can match), ties by the bigram: the one range of kept_rider_name_grams to read.
const RAREST_GRAM = `(SELECT t.gram FROM unnest(rider_name_bigrams(rider_name_key(?))) AS t(gram)
  LEFT JOIN kept_rider_name_gram_counts k ON k.gram = t.gram ORDER BY coalesce(k.riders, 0), t.gram LIMIT 1)`;

/**
 * Riders whose name holds each word of `term` in any order ("Malik, Reem" and "Malik Reem" find Reem
 * Malik, as names are often written surname first), ignoring letter case, runs of spaces, commas and
 * accents (through the name key, rider_name_key(), of migration 016; % and _ are plain characters).
 * Read in name order from the kept bigrams of migration 025: the entries of the term's rarest bigram,
 * each checked against every word and the scope's 3PL in the index itself, so that the first rows
 * cost the same at any size of fleet. Words of one letter only: the riders in the order of their name
 * index, each checked (a common letter stops early; a rare one reads further, within the page's
 * statement budget). One relation `g` (name, rider_id, name_key, company_id); no order, no columns.
 */
function nameMatches(term: string, scope: Scope) {
  const words = searchWords(term);
  const builder: Knex.QueryBuilder = searchableByName(term)
    ? sql('kept_rider_name_grams as g').whereRaw(`g.gram = ${RAREST_GRAM}`, [words.join(' ')])
    : // A plain subquery, which PostgreSQL flattens: g.name, g.rider_id are riders' name, id (riders_name_idx).
      sql.from(sql.raw('(SELECT name, id AS rider_id, name_key, company_id FROM riders) AS g') as unknown as string);
  applyScope(builder, scope, 'g.company_id');
  // No word (only commas and spaces): no name, never every rider.
  if (!words.length) return builder.whereRaw('false');
  for (const word of words) builder.whereRaw('g.name_key LIKE rider_name_key(?)', [`%${word.replace(/[\\%_]/g, '\\$&')}%`]);
  return builder;
}

/** The first `limit` riders nameMatches() finds, in name order (the kept name, then id: its index's order). */
const firstMatches = (term: string, scope: Scope, limit: number) =>
  nameMatches(term, scope)
    .select('g.name', 'g.rider_id')
    .orderBy([{ column: 'g.name' }, { column: 'g.rider_id' }])
    .limit(limit);

/** The columns of a found rider `r`, with `order_name` (the key of name order). */
const foundRiders = (builder: Knex.QueryBuilder, orderName: string) =>
  builder
    .join('companies as c', 'c.id', 'r.company_id')
    .join('countries as co', 'co.id', 'r.country_id')
    .select('r.id', 'r.name', 'c.name as company', 'co.code as country_code', sql.raw(`${orderName} AS order_name`));

/** The first `limit` riders whose name holds each word of `term` (see nameMatches), in name order. */
export function searchRiders(term: string, scope: Scope, limit: number) {
  return foundRiders(sql.from(firstMatches(term, scope, limit).as('g')).join('riders as r', 'r.id', 'g.rider_id'), 'g.name').orderBy([
    { column: 'g.name' },
    { column: 'g.rider_id' },
  ]);
}

/** The search page's rows: searchRiders() and how many items each rider holds now (kept by triggers). */
export function searchResults(term: string, scope: Scope, limit: number) {
  return searchRiders(term, scope, limit).select('r.active_items as held');
}

/** How many riders searchRiders() finds, counted up to `cap` + 1 (more is "more than `cap`"). */
export function searchCount(term: string, scope: Scope, cap: number) {
  return sql.count({ total: '*' }).from(
    nameMatches(term, scope)
      .select(sql.raw('1'))
      .limit(cap + 1)
      .as('m'),
  );
}

/**
 * Up to `limit` riders for suggestions as one types: those searchRiders() finds and, for a term of
 * digits, the rider of that ID, all in name order.
 */
export function riderSuggestions(term: string, scope: Scope = {}, limit = 20) {
  const byName = searchRiders(term, scope, limit);
  if (!/^[0-9]{1,18}$/.test(term)) return byName;
  const byId = applyScope(foundRiders(sql('riders as r'), 'left(r.name, 500)'), scope).where('r.id', term);
  return sql
    .select('m.id', 'm.name', 'm.company', 'm.country_code')
    .from(sql.union([byName, byId], true).as('m'))
    .orderBy([{ column: 'm.order_name' }, { column: 'm.id' }])
    .limit(limit);
}

/** Every 3PL name, for the forms' suggestions (the filters match names exactly). */
export function companyNames(scope: Scope = {}) {
  return applyScope(sql('companies as c'), scope, 'c.id').select('c.name').orderBy('c.name');
}

// ---------------------------------------------------------------------------------------------
// Printable reports (src/reports): the riders to print, by the list's filters. Unlike the list,
// without `active` a rider who never held anything is kept: an acknowledgement form for "nothing
// held" is still a form to sign.

/** Riders the report filters keep; no columns chosen yet (the caller counts, or adds reportColumns). */
export function reportRiders(values: Filters) {
  const builder = sql('riders as r').join('companies as c', 'c.id', 'r.company_id');
  return applyScope(applyFilters(builder, params, values, ['rider_id', '3pl_name', 'active']), values);
}

/** The report header of each rider, by id, with the moment of printing in the session's time zone. */
export function reportColumns(builder: Knex.QueryBuilder) {
  return builder
    .join('countries as co', 'co.id', 'r.country_id')
    .select(
      'r.id',
      'r.name',
      'c.name as company',
      'co.code as country_code',
      'co.name as country_name',
      sql.raw(`to_char(now(), 'YYYY-MM-DD HH24:MI') AS printed_at`),
    )
    .orderBy('r.id');
}

/** The admin list's source (src/admin/lists.ts): its filters, the builders that read it, its sorts. */
export const adminList = {
  filters: adminParams,
  filtered: filtered,
  columns: adminColumns,
  /** Sorts the list offers, by their URL name; r.id breaks ties. Each is an index's order. */
  sorts: {
    rider_id: { keys: [] },
    rider_name: { keys: [textKey('r.name')] },
    '3pl': byCompany([]),
  } satisfies Record<string, ListSort>,
  tieBreak: 'r.id',
};
