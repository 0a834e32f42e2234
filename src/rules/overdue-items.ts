import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { timeKey } from '../queries/keyset';
import { dayText } from '../wire/sql-fragments';
import { riderColumns } from './columns';
import { defineRule, type AttentionQuery } from './define';
import { AS_OF, earlierNote, riders, UNTIL, unhandled, riderCells } from './sql';

const NAME = 'overdue-items';

/**
 * Item `k` (a kept exchange day) was past its exchange day before the as-of day began and held at its
 * end; binds q.asOf twice. The exchange days are kept in the zone of rider_list_zone, which the start
 * aligns with TIME_ZONE (or says what to run; src/db/bootstrap.ts).
 */
const overdue = (k: string) =>
  `(${k}.deleted_at IS NULL OR ${k}.deleted_at > ${k}.eligible_at) AND ${k}.eligible_at < ${AS_OF}::timestamptz AND (${k}.deleted_at IS NULL OR ${k}.deleted_at >= ${UNTIL})`;

/** Each overdue item (k); no riders, no columns. */
const bareItems = (q: AttentionQuery) => sql('kept_assignment_days as k').whereRaw(overdue('k'), [q.asOf, q.asOf]);

/** Each overdue item (k) of the scope's riders (r, c); no columns. */
function items(q: AttentionQuery) {
  return riders(bareItems(q).join('riders as r', 'r.id', 'k.rider_id').join('companies as c', 'c.id', 'r.company_id'), q);
}

/** With q.item: only the riders with an overdue item of that product (and variation), one probe of their own items each. */
function byItem(builder: Knex.QueryBuilder, q: AttentionQuery) {
  const { productId, variationId } = q.item ?? {};
  if (!productId && !variationId) return builder;
  const theirs = sql('kept_assignment_days as f')
    .join('assignments as fa', 'fa.id', 'f.assignment_id')
    .whereRaw('f.rider_id = k.rider_id')
    .whereRaw(overdue('f'), [q.asOf, q.asOf])
    .select(sql.raw('1'));
  if (productId) theirs.where('fa.product_id', productId);
  if (variationId) theirs.where('fa.variation_id', variationId);
  return builder.whereExists(theirs);
}

/** The newest exchange day among the rider's overdue items: what a handling of the rider covers. */
const newestDue = (q: AttentionQuery) =>
  sql.raw(`(SELECT max(n.eligible_at) FROM kept_assignment_days n WHERE n.rider_id = k.rider_id AND ${overdue('n')})`, [q.asOf, q.asOf]);

/**
 * One case per rider: the rider's longest overdue item (k), read in the order of the exchange days'
 * index, so a page stops after its rows and a count at its cap; each row one probe of the rider's own
 * items for an earlier one (an index-only read: migration 028). Handled when a handling covers the
 * rider's newest due item. Over `from`: items(q), or bareItems(q) for a page's keys (RuleList.bare).
 */
function core(q: AttentionQuery, from = items(q)) {
  const builder = byItem(from, q).whereNotExists(
    sql('kept_assignment_days as e')
      .whereRaw('e.rider_id = k.rider_id')
      .whereRaw(overdue('e'), [q.asOf, q.asOf])
      .whereRaw('(e.eligible_at, e.assignment_id) < (k.eligible_at, k.assignment_id)')
      .select(sql.raw('1')),
  );
  const due = newestDue(q).toSQL();
  return unhandled(builder, q, NAME, 'k.rider_id', due.sql, due.bindings as string[]);
}

/** The rider's overdue items on the page's rows only: how many, which, the newest due. */
function columns(builder: Knex.QueryBuilder, q: AttentionQuery) {
  return builder
    .joinRaw(
      `CROSS JOIN LATERAL (SELECT count(*)::int AS items,
         string_agg(p.name || ' / ' || v.name, '; ' ORDER BY i.eligible_at, i.assignment_id) AS item_names
         FROM kept_assignment_days i JOIN assignments a ON a.id = i.assignment_id
         JOIN products p ON p.id = a.product_id JOIN product_variations v ON v.id = a.variation_id
        WHERE i.rider_id = k.rider_id AND ${overdue('i')}) AS its`,
      [q.asOf, q.asOf],
    )
    .select(
      ...riderCells('k.rider_id'),
      'its.items',
      'its.item_names',
      sql.raw(`${dayText('k.eligible_at')} AS eligible_on`),
      sql.raw(`(${AS_OF} - k.eligible_at::date) AS days_past`, [q.asOf]),
    );
}

/** One overdue item per row, for the rider's open points: each item named. */
function itemColumns(builder: Knex.QueryBuilder, q: AttentionQuery) {
  return builder
    .join('assignments as a', 'a.id', 'k.assignment_id')
    .join('products as p', 'p.id', 'a.product_id')
    .join('product_variations as v', 'v.id', 'a.variation_id')
    .select(
      'k.rider_id',
      'p.name as product_name',
      'v.name as variation_name',
      sql.raw(`${dayText('k.eligible_at')} AS eligible_on`),
      sql.raw(`(${AS_OF} - k.eligible_at::date) AS days_past`, [q.asOf]),
    )
    .orderBy(['k.eligible_at', 'k.assignment_id']);
}

const plural = (n: unknown, one: string, many: string) => `${Number(n).toLocaleString('en')} ${Number(n) === 1 ? one : many}`;

/**
 * Riders holding items past their exchange day (assigned + the product's days) at the end of the as-of
 * day: one row per rider, longest overdue first, with how many items and which.
 */
export default defineRule({
  name: NAME,
  subject: 'rider',
  title: 'Items past their exchange day',
  means: () =>
    'Riders holding items after the day they became eligible for exchange (assigned, plus the product’s exchange period): one row per rider with all such items, the rider whose item is longest overdue first.',
  counted: 'riders holding items past their exchange day',
  noun: ['rider', 'riders'],
  columns: [
    ...riderColumns(false),
    {
      key: 'items',
      label: 'Items',
      text: (row) => `${plural(row.items, 'item', 'items')}: ${row.item_names}`,
      csvSql: `to_char(t.items, 'FM999,999,999,990') || CASE WHEN t.items = 1 THEN ' item: ' ELSE ' items: ' END || t.item_names`,
    },
    { key: 'eligible_on', label: 'Due since', nowrap: true, sort: 'exchange_day' },
    { key: 'days_past', label: 'Days past', numeric: true },
  ],
  list: {
    core,
    bare: (q) => core(q, bareItems(q)),
    columns: (builder, q) => earlierNote(columns(builder, q), NAME, 'k.rider_id'),
    sorts: { exchange_day: { keys: [timeKey('k.eligible_at')] } },
    defaultSort: { sort: 'exchange_day', dir: 'asc' },
    tieBreak: 'k.assignment_id',
    subject: 'k.rider_id',
    countOrder: 'k.eligible_at, k.assignment_id',
    byItem: true,
  },
  evidence: (q) => newestDue(q),
  openPoint: {
    rows: (q) => itemColumns(items(q), q),
    sentence: (row) => [
      { auto: `${row.product_name} / ${row.variation_name}` },
      ` is past its exchange day (${row.eligible_on}, ${row.days_past} ${Number(row.days_past) === 1 ? 'day' : 'days'} ago).`,
    ],
  },
});
