import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { timeKey } from '../queries/keyset';
import { dayText } from '../wire/sql-fragments';
import { riderColumns } from './columns';
import { defineRule, type AttentionQuery } from './define';
import { AS_OF, earlierNote, riders, UNTIL, unhandled } from './sql';

const NAME = 'overdue-items';

/**
 * Items (kept exchange day k, rider r, 3PL c); no columns. The exchange days are kept in the zone of
 * rider_list_zone, which the start aligns with TIME_ZONE (or says what to run; src/db/bootstrap.ts).
 */
function core(q: AttentionQuery) {
  // Past the exchange day before the day began, and held at its end, read in the order of the index.
  const builder = riders(
    sql('kept_assignment_days as k')
      .join('riders as r', 'r.id', 'k.rider_id')
      .join('companies as c', 'c.id', 'r.company_id')
      .whereRaw('(k.deleted_at IS NULL OR k.deleted_at > k.eligible_at)')
      .whereRaw(`k.eligible_at < ${AS_OF}::timestamptz`, [q.asOf])
      .whereRaw(`(k.deleted_at IS NULL OR k.deleted_at >= ${UNTIL})`, [q.asOf]),
    q,
  );
  return unhandled(builder, q, NAME, 'k.rider_id', 'k.eligible_at');
}

function columns(builder: Knex.QueryBuilder, q: AttentionQuery) {
  return builder
    .join('assignments as a', 'a.id', 'k.assignment_id')
    .join('products as p', 'p.id', 'a.product_id')
    .join('product_variations as v', 'v.id', 'a.variation_id')
    .select(
      'k.rider_id',
      'r.name as rider_name',
      'c.name as company',
      'k.assignment_id',
      'p.name as product_name',
      'v.name as variation_name',
      sql.raw(`${dayText('a.assigned_at')} AS assigned_on`),
      sql.raw(`${dayText('k.eligible_at')} AS eligible_on`),
      sql.raw(`(${AS_OF} - k.eligible_at::date) AS days_past`, [q.asOf]),
    );
}

/** Items held at the end of the as-of day whose exchange day (assigned + the product's days) is before it. */
export default defineRule({
  name: NAME,
  subject: 'rider',
  title: 'Items past their exchange day',
  means: () =>
    'Items still held after the day they became eligible for exchange (assigned, plus the product’s exchange period), longest overdue first.',
  counted: 'items past their exchange day',
  noun: ['item', 'items'],
  columns: [
    ...riderColumns(false),
    { key: 'product_name', label: 'Item', text: (row) => `${row.product_name} / ${row.variation_name}` },
    { key: 'assigned_on', label: 'Assigned', nowrap: true },
    { key: 'eligible_on', label: 'Exchange due', nowrap: true, sort: 'exchange_day' },
    { key: 'days_past', label: 'Days past', numeric: true },
  ],
  list: {
    core,
    columns: (builder, q) => earlierNote(columns(builder, q), NAME, 'k.rider_id'),
    sorts: { exchange_day: { keys: [timeKey('k.eligible_at')] } },
    defaultSort: { sort: 'exchange_day', dir: 'asc' },
    tieBreak: 'k.assignment_id',
    countOrder: 'k.eligible_at, k.assignment_id',
  },
  evidence: 'k.eligible_at',
  openPoint: {
    rows: (q) => columns(core(q), q).orderBy(['k.eligible_at', 'k.assignment_id']),
    sentence: (row) => [
      { auto: `${row.product_name} / ${row.variation_name}` },
      ` is past its exchange day (${row.eligible_on}, ${row.days_past} ${Number(row.days_past) === 1 ? 'day' : 'days'} ago).`,
    ],
  },
});
