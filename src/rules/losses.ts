import { sql } from '../db/knex';
import { addDays } from '../filters/days';
import { links } from '../html/links';
import { daysBefore, endOfDay, exchangesBetween } from '../queries/kept-counts';
import { dayText } from '../wire/sql-fragments';
import { defineRule, type AttentionQuery } from './define';
import { earlierNote, namedCompany, riders, UNTIL, unhandled } from './sql';

const NAME = 'losses';

/** A 3PL's newest quarter of an hour with a Lost or Accident exchange before the end of the day. */
const evidence = (company: string) => `(SELECT max(x.bucket) FROM kept_exchange_quarters x WHERE x.company_id = ${company}
    AND x.replacement_type IN ('Lost', 'Accident') AND x.bucket < ${UNTIL})`;

/**
 * Per 3PL with Lost or Accident exchanges in the last `lossDays` days: how many, against how many the
 * 3PL usually has in as many days (its rate over the `baselineDays` before them), most above first.
 */
function rows(q: AttentionQuery) {
  const { lossDays, baselineDays } = q.settings;
  const until = endOfDay(q.asOf);
  const recentFrom = daysBefore(until, lossDays);
  const types = ['Lost', 'Accident'];
  const recent = exchangesBetween(recentFrom, until, q.scope, types).as('x');
  const before = exchangesBetween(daysBefore(until, lossDays + baselineDays), recentFrom, q.scope, types).as('y');
  const counted = sql
    .from(
      sql
        .unionAll(
          [
            sql.from(recent).select('x.company_id', sql.raw('x.exchanges AS recent'), sql.raw('0 AS before')),
            sql.from(before).select('y.company_id', sql.raw('0'), 'y.exchanges'),
          ],
          true,
        )
        .as('u'),
    )
    .groupBy('u.company_id')
    .select('u.company_id', sql.raw('sum(u.recent)::int AS recent'), sql.raw('sum(u.before)::int AS before'));
  const builder = namedCompany(sql.from(counted.as('k')).join('companies as c', 'c.id', 'k.company_id'), q.company)
    .where('k.recent', '>', 0)
    .select(
      'c.id as company_id',
      'c.name as company',
      'k.recent',
      sql.raw('round(k.before * ?::numeric / ?, 1)::float8 AS usual', [lossDays, baselineDays]),
      sql.raw('(k.recent > k.before * ?::numeric / ?) AS above_usual', [lossDays, baselineDays]),
    )
    .orderByRaw('k.recent - k.before * ?::numeric / ? DESC, c.name', [lossDays, baselineDays]);
  if (!q.hideHandled) return builder;
  return earlierNote(unhandled(builder, q, NAME, 'k.company_id', evidence('k.company_id'), [q.asOf]), NAME, 'k.company_id');
}

/** Riders' own Lost and Accident exchanges of the last `lossDays` days (their open points). */
function riderLosses(q: AttentionQuery) {
  return riders(
    sql('product_exchanges as e')
      .join('assignments as a', 'a.id', 'e.old_assignment_id')
      .join('products as p', 'p.id', 'a.product_id')
      .join('product_variations as v', 'v.id', 'a.variation_id')
      .join('riders as r', 'r.id', 'a.rider_id')
      .whereIn('e.replacement_type', ['Lost', 'Accident'])
      .whereRaw(`e.exchanged_at < ${UNTIL} AND e.exchanged_at >= (${UNTIL} - ? * interval '1 day')`, [q.asOf, q.asOf, q.settings.lossDays])
      .select(
        'r.id as rider_id',
        'e.replacement_type',
        'p.name as product_name',
        'v.name as variation_name',
        sql.raw(`${dayText('e.exchanged_at')} AS exchanged_on`),
      )
      .orderBy([{ column: 'e.exchanged_at' }, { column: 'e.id' }]),
    q,
  );
}

export default defineRule({
  name: NAME,
  subject: '3pl',
  title: 'Lost and Accident exchanges by 3PL',
  means: (s) =>
    `3PLs with Lost or Accident exchanges in the last ${s.lossDays} days, against how many they usually have in ${s.lossDays} days (their rate over the ${s.baselineDays} days before). Those above their usual rate come first; the count is of those.`,
  counted: '3PLs above their usual Lost and Accident rate',
  noun: ['3PL', '3PLs'],
  columns: [
    { key: 'company', label: '3PL', auto: true, href: (row) => String(row.href) },
    { key: 'recent', label: 'Lost and Accident', numeric: true },
    { key: 'usual', label: 'Usual', numeric: true },
    {
      key: 'above_usual',
      label: 'Above usual',
      text: (row) => (row.above_usual ? 'Yes' : 'No'),
      badge: (row) => (row.above_usual ? 'fail' : undefined),
    },
  ],
  rows,
  counts: 'above_usual',
  evidence,
  evidenceBindings: (q) => [q.asOf],
  // That 3PL's exchanges of the window.
  href: (row, asOf, s) =>
    links.exchanges({ '3pl': String(row.company), exchange_date_from: addDays(asOf, -(s.lossDays - 1)), exchange_date_to: asOf }),
  openPoint: {
    rows: riderLosses,
    sentence: (row) => [
      `${row.replacement_type} exchange of `,
      { auto: `${row.product_name} / ${row.variation_name}` },
      ` on ${row.exchanged_on}.`,
    ],
  },
});
