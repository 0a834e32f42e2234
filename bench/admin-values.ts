// The values the admin pages are asked with, sampled from a dataset (bench/admin.ts): the most frequent
// value of each filter's columns among a list's rows, and the ranges riders and checks are drawn from.
import type pg from 'pg';
import { adminLists, DEFAULT_ATTENTION, type ListResource, sql, toNative } from '../src/bench-entry';
import type { DatasetValues, SampleNeed } from './admin-pages';

/** Every list the admin pages serve: the five lists and the rules of "Needs attention". */
export const benchLists = adminLists(DEFAULT_ATTENTION);

/** The SQL of a sample: the most frequent value (tuple) of the columns among the list's rows, as text. */
function sampleSql(need: SampleNeed, lists: readonly ListResource[]): { text: string; values: unknown[] } {
  if ('special' in need) {
    return need.special === 'asOf'
      ? // A past day with history on both sides: 90 days before the last check.
        { text: `SELECT to_char(max(checked_at) - interval '90 days', 'YYYY-MM-DD') AS v0 FROM patrol_checks`, values: [] }
      : // The most frequent last word of riders' names (a family name): a search with many results.
        {
          text: `SELECT regexp_replace(name, '^.*\\s', '') AS v0 FROM riders GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
          values: [],
        };
  }
  const list = lists.find((l) => l.path === need.list);
  if (!list) throw new Error(`no list at ${need.list}`);
  const builder = list
    .filtered({})
    .select(need.columns.map((column, i) => sql.raw('??::text AS ??', [column, `v${i}`])))
    .groupBy(need.columns)
    .orderByRaw('count(*) DESC')
    .orderBy(need.columns.map((column) => ({ column })))
    .limit(1);
  return toNative(builder);
}

/** A dataset's values for the pages: each sample, and the ranges riders and checks are drawn from. */
export async function datasetValues(client: pg.Client, samples: readonly SampleNeed[]): Promise<DatasetValues> {
  const out: DatasetValues = { samples: {}, ranges: { rider: { min: 0, max: 0 }, check: { min: 0, max: 0 } } };
  for (const need of samples) {
    const query = sampleSql(need, benchLists);
    const { rows } = await client.query<Record<string, string | null>>(query.text, query.values);
    if (rows.length) out.samples[need.key] = Object.keys(rows[0]).map((k) => rows[0][k] ?? '');
  }
  for (const [what, table] of [
    ['rider', 'riders'],
    ['check', 'patrol_checks'],
  ] as const) {
    const { rows } = await client.query<{ min: number; max: number; n: number }>(
      `SELECT min(id)::float8 AS min, max(id)::float8 AS max, count(*)::float8 AS n FROM ${table}`,
    );
    out.ranges[what] = { min: rows[0].min, max: rows[0].max };
    if (rows[0].max - rows[0].min + 1 !== rows[0].n) throw new Error(`${table} ids are not contiguous: random ids would miss`);
  }
  return out;
}
