import type { Knex } from 'knex';
import { sql } from '../db/knex';
import type { Scope } from '../filters/scope';

// Counts over a window of time from the tables kept by triggers (migration 008): checks per 3PL and
// quarter of an hour, exchanges per 3PL, replacement type and quarter, and per UTC day. A window
// starts and ends at instants on a quarter of an hour (the start of a day in any time zone is one), so
// the sums are exact.

/** An instant in SQL (with its bindings), e.g. the start of a day in the session's time zone. */
export interface Moment {
  sql: string;
  bindings: Array<string | number | null>;
}

export const startOfDay = (day: string | null): Moment => ({ sql: 'coalesce(?::date, current_date)::timestamptz', bindings: [day] });
export const endOfDay = (day: string | null): Moment => ({ sql: '(coalesce(?::date, current_date) + 1)::timestamptz', bindings: [day] });
export const daysBefore = (moment: Moment, days: number): Moment => ({
  sql: `(${moment.sql} - ? * interval '1 day')`,
  bindings: [...moment.bindings, days],
});
export const EVER: Moment = { sql: `'-infinity'::timestamptz`, bindings: [] };

/** Checks and passed checks per 3PL and quarter in [from, until), as rows of kept_check_quarters (alias q). */
export function checkQuarters(from: Moment, until: Moment, scope: Scope = {}) {
  const builder = sql('kept_check_quarters as q').whereRaw(`q.bucket >= ${from.sql} AND q.bucket < ${until.sql}`, [
    ...from.bindings,
    ...until.bindings,
  ]);
  if (scope.company_id) builder.where('q.company_id', scope.company_id);
  return builder;
}

/**
 * Exchanges per 3PL and replacement type in [from, until): whole UTC days from kept_exchange_days,
 * the quarters of the days cut by either end from kept_exchange_quarters. Rows (company_id,
 * replacement_type, exchanges) to be summed, as a subquery.
 */
export function exchangesBetween(from: Moment, until: Moment, scope: Scope = {}, replacementTypes?: readonly string[]) {
  // The first whole UTC day from `from` on, and the first day `until` cuts (or ends at).
  const firstDay = `(SELECT CASE WHEN t = t::date THEN t::date ELSE t::date + 1 END FROM (SELECT ${from.sql} AT TIME ZONE 'UTC' AS t) x)`;
  const endDay = `((${until.sql}) AT TIME ZONE 'UTC')::date`;
  const midnight = (date: string) => `(${date}::timestamp AT TIME ZONE 'UTC')`;
  const narrow = (builder: Knex.QueryBuilder, alias: string) => {
    if (scope.company_id) builder.where(`${alias}.company_id`, scope.company_id);
    if (replacementTypes) builder.whereIn(`${alias}.replacement_type`, replacementTypes);
    return builder;
  };
  const days = narrow(
    sql('kept_exchange_days as d')
      .whereRaw(`d.day >= ${firstDay} AND d.day < ${endDay}`, [...from.bindings, ...until.bindings])
      .select('d.company_id', 'd.replacement_type', 'd.exchanges'),
    'd',
  );
  // The quarters before the first whole day and from the day `until` cuts: two ranges of the key
  // (the second empty when there is no whole day between, the first then all of [from, until)).
  const quarters = narrow(
    sql('kept_exchange_quarters as q')
      .whereRaw(
        `((q.bucket >= ${from.sql} AND q.bucket < least(${until.sql}, ${midnight(firstDay)}))` +
          ` OR (q.bucket >= greatest(${from.sql}, ${midnight(endDay)}) AND q.bucket < ${until.sql} AND ${firstDay} < ${endDay}))`,
        [
          ...from.bindings,
          ...until.bindings,
          ...from.bindings,
          ...from.bindings,
          ...until.bindings,
          ...until.bindings,
          ...from.bindings,
          ...until.bindings,
        ],
      )
      .select('q.company_id', 'q.replacement_type', 'q.exchanges'),
    'q',
  );
  return sql.unionAll([days, quarters], true);
}
