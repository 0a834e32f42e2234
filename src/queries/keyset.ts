import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { MAX_BIGINT } from '../filters/define';

// How the admin lists read one page: over the narrow set of matching rows (their sort keys and ids,
// no display columns), by the sort key of the row before it (keyset) or by an offset, so that a page
// costs an index range of its own rows instead of a sort or a scan of every row skipped. Display
// columns are then computed for the page's rows only (late materialisation).

export type Dir = 'asc' | 'desc';
export type KeyType = 'bigint' | 'timestamptz' | 'text';
export interface SortKey {
  sql: string;
  type: KeyType;
}

/**
 * A list's sort: the keys it orders by before the row's id breaks ties, all in the one direction. No
 * key may be NULL (coalesce one that can be); keys may differ by direction. `groups`: the first key
 * has few values (a 3PL's name), listed by `values` (`key`, and `id` that `match` equals); each
 * value's rows are read on their own, in the order of the other keys, from an index that serves it.
 */
export interface ListSort {
  keys: readonly SortKey[] | Readonly<Record<Dir, readonly SortKey[]>>;
  groups?: { values: () => Knex.QueryBuilder; match: string };
}

export const bigintKey = (column: string): SortKey => ({ sql: column, type: 'bigint' });
export const timeKey = (column: string): SortKey => ({ sql: column, type: 'timestamptz' });
export const textKey = (column: string): SortKey => ({ sql: column, type: 'text' });

/** Sorted by the 3PL's name: one group per 3PL, its rows found by their 3PL's id (`match`: the riders', or one kept on the rows). */
export const byCompany = (then: readonly SortKey[], match = 'r.company_id'): ListSort => ({
  keys: [textKey('c.name'), ...then],
  groups: { values: () => sql('companies as g').select('g.name as key', 'g.id'), match },
});

/** Sorted by the product's name: one group per product, its rows found by their product id. */
export const byProduct = (match: string, then: readonly SortKey[]): ListSort => ({
  keys: [textKey('p.name'), ...then],
  groups: { values: () => sql('products as g').select('g.name as key', 'g.id'), match },
});

export const sortKeys = (sort: ListSort, dir: Dir): readonly SortKey[] =>
  Array.isArray(sort.keys) ? sort.keys : (sort.keys as Record<Dir, readonly SortKey[]>)[dir];

const flip = (dir: Dir): Dir => (dir === 'asc' ? 'desc' : 'asc');
const cast = (key: SortKey) => `CAST(? AS ${key.type})`;
const orderSql = (columns: readonly string[], dir: Dir) => columns.map((column) => `${column} ${dir}`).join(', ');

/** ORDER BY of the whole list (the CSV): the sort's keys, then the tie-break. */
export function orderAll(builder: Knex.QueryBuilder, sort: ListSort, dir: Dir, tieBreak: string) {
  return builder.orderByRaw(orderSql([...sortKeys(sort, dir).map((key) => key.sql), tieBreak], dir));
}

/**
 * `(keys…, id) > (values…)` (or `<`), plus the first key's bound on its own: the row comparison is
 * an index condition only when every key is a column of one index; the bound alone always is.
 */
function after(builder: Knex.QueryBuilder, keys: readonly SortKey[], values: readonly string[], op: '>' | '<') {
  const all = [...keys];
  builder.whereRaw(`(${all.map((key) => key.sql).join(', ')}) ${op} (${all.map(cast).join(', ')})`, [...values]);
  if (all.length > 1) builder.whereRaw(`${all[0].sql} ${op}= ${cast(all[0])}`, [values[0]]);
  return builder;
}

export interface KeysRead {
  /** The rows the filters keep, without columns; joins the keys do not use are best LEFT JOINs (dropped). */
  source: () => Knex.QueryBuilder;
  sort: ListSort;
  dir: Dir;
  tieBreak: string;
  /** Read from the end (the last page, or the rows before the cursor), not from the start. */
  backwards: boolean;
  /** The sort key of the row the read starts after (or before, backwards): its keys' values, then its id. */
  cursor?: readonly string[];
  offset: number;
  limit: number;
}

/**
 * The page's keys, `k0…` (each sort key) and `id`, in the order read. Written into the SQL as
 * literals, offset and limit are whole numbers checked here (they are part of the statement's shape).
 */
export function pageKeys(read: KeysRead): Knex.QueryBuilder {
  const { sort, dir, tieBreak, backwards, cursor, offset, limit } = read;
  if (![offset, limit].every((n) => Number.isSafeInteger(n) && n >= 0)) throw new TypeError(`bad offset ${offset} or limit ${limit}`);
  const keys = sortKeys(sort, dir);
  const readDir = backwards ? flip(dir) : dir;
  const op = readDir === 'asc' ? '>' : '<';
  const all = [...keys, bigintKey(tieBreak)];
  const names = [...keys.map((_, i) => `k${i}`), 'id'];

  // Keys are never NULL: saying so turns a LEFT JOIN the sort reads into an inner join, which the
  // planner may then drive from the joined table's index (a left join's outer side must come first).
  const source = () => keys.reduce((builder, key) => builder.whereRaw(`${key.sql} IS NOT NULL`), read.source());
  if (!sort.groups || keys.length === 0) {
    const builder = source().select(all.map((key, i) => sql.raw(`${key.sql} AS ${names[i]}`)));
    if (cursor) after(builder, all, cursor, op);
    return builder
      .orderByRaw(
        orderSql(
          all.map((key) => key.sql),
          readDir,
        ),
      )
      .offset(offset, { skipBinding: true })
      .limit(limit, { skipBinding: true });
  }

  // Each group's first rows in order (enough for the page), from its own index range. The group's key
  // is the group's own (the rows need not join its table). Without a cursor the groups are read in
  // order and put in order a group at a time (an incremental sort), so a deep page stops in the group
  // that holds it instead of reading every group's first rows; with one, the cursor's own group
  // continues after it and the groups past it give their first few rows each.
  const { values, match } = sort.groups;
  const rest = all.slice(1);
  const groupSource = () => keys.slice(1).reduce((builder, key) => builder.whereRaw(`${key.sql} IS NOT NULL`), read.source());
  const group = (condition: string, bindings: readonly string[], withCursor: boolean) => {
    const inner = groupSource()
      .whereRaw(`${match} = grp.id`)
      .select(rest.map((key, i) => sql.raw(`${key.sql} AS ${names[i + 1]}`)));
    if (withCursor && cursor) after(inner, rest, cursor.slice(1), op);
    inner
      .orderByRaw(
        orderSql(
          rest.map((key) => key.sql),
          readDir,
        ),
      )
      .limit(offset + limit, { skipBinding: true });
    const outer = sql
      .select([sql.raw('grp.key AS k0'), ...names.slice(1).map((name) => `k.${name}`)])
      .from(sql.raw('(?) AS grp', [values().orderBy('key', readDir)]))
      .joinRaw('CROSS JOIN LATERAL (?) AS k', [inner as unknown as Knex.Raw]); // a builder, bound as a subquery
    return condition ? outer.whereRaw(condition, [...bindings]) : outer;
  };
  const ordered = (builder: Knex.QueryBuilder) =>
    builder.orderByRaw(orderSql(names, readDir)).offset(offset, { skipBinding: true }).limit(limit, { skipBinding: true });
  if (!cursor) return ordered(group('', [], false));
  const parts = [group(`grp.key = ${cast(keys[0])}`, [cursor[0]], true), group(`grp.key ${op} ${cast(keys[0])}`, [cursor[0]], false)];
  return ordered(sql.select('*').from(sql.raw(`(${parts.map(() => '(?)').join(' UNION ALL ')}) AS u`, parts)));
}

/**
 * The list's display columns (`columns`, over the filtered rows) for the page's rows only, in the
 * list's order, each row with its sort key as text (`page_key_0…`, `page_key_id`) for the links. The
 * rows are found by id from an array of the page's ids: an index condition on the first table
 * whatever the number of joins (past join_collapse_limit the planner keeps the written join order).
 */
export function pageRows(columns: Knex.QueryBuilder, keys: Knex.QueryBuilder, sort: ListSort, dir: Dir, tieBreak: string) {
  const all = [...sortKeys(sort, dir).map((key) => key.sql), tieBreak];
  return columns
    .whereRaw(`${tieBreak} = ANY(ARRAY(SELECT page_keys.id FROM (?) AS page_keys))`, [keys as unknown as Knex.Raw])
    .select(all.map((key, i) => sql.raw(`(${key})::text AS page_key_${i === all.length - 1 ? 'id' : i}`)))
    .orderByRaw(orderSql(all, dir));
}

/**
 * How many rows `source` holds, counted up to `cap + 1`: past `cap`, only that there are more. With
 * `order` (SQL), the rows are read in it, as an index holds them, so that the count stops at its cap.
 */
export function cappedCount(source: Knex.QueryBuilder, cap: number, order?: string) {
  if (!Number.isSafeInteger(cap) || cap < 1) throw new TypeError(`bad cap ${cap}`);
  const rows = source.select(sql.raw('1 AS one')).limit(cap + 1, { skipBinding: true });
  if (order) rows.orderByRaw(order);
  return sql.from(rows.as('capped')).count({ total: '*' });
}

const TIMESTAMP =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]{1,6})?[+-]([0-9]{2})(?::([0-9]{2}))?(?::([0-9]{2}))?$/;
const daysIn = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** Whether `value` is a key of this type as PostgreSQL writes it (`::text`), so that it reads back without an error. */
export function isKeyValue(type: KeyType, value: unknown): boolean {
  if (typeof value !== 'string' || value.includes('\0')) return false;
  if (type === 'text') return value.length <= 1000;
  if (type === 'bigint') return /^-?[0-9]{1,19}$/.test(value) && BigInt(value) <= MAX_BIGINT && BigInt(value) >= -MAX_BIGINT - 1n;
  if (value === 'infinity' || value === '-infinity') return true;
  const m = TIMESTAMP.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes = 0, offsetSeconds = 0] = m.slice(1).map((v) => Number(v ?? 0));
  return (
    year >= 1 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 15 &&
    offsetMinutes <= 59 &&
    offsetSeconds <= 59
  );
}
