// The two statements of one admin list page, its rows and its capped count, built as the page builds
// them and run under EXPLAIN (ANALYZE, BUFFERS) five times each: the median time and the buffers read,
// and with --plan the last plan in full. For measuring an index or a filter on a big copy:
//
//   npm run -s build && node dist/bench/explain-list.js postgres://…/dev100k /checks 'result=failed&page=400' [company_id] [--plan]
//
// A company id plays a supervisor limited to that 3PL. Only reads: EXPLAIN ANALYZE of SELECTs.
import pg from 'pg';
import { toNative, type NativeQuery } from '../src/db/knex';
import { DEFAULT_COUNT_CAP, positionOf } from '../src/admin/list-pager';
import { DEFAULT_PER_PAGE, listParams } from '../src/admin/list-params';
import { adminLists } from '../src/admin/registry';
import { DEFAULT_ATTENTION } from '../src/config';
import { queryValidator } from '../src/filters/validate';
import { cappedCount, pageKeys, pageRows, sortKeys, type Dir } from '../src/queries/keyset';

const RUNS = 5;

/** The page's statements for `query` (a list page's query string), as src/admin/list-page.ts builds them. */
export async function listStatements(path: string, query: string, companyId?: string): Promise<Record<'page' | 'count', NativeQuery>> {
  // The rule lists with the default thresholds (the ATTENTION_* settings unset).
  const lists = adminLists(DEFAULT_ATTENTION);
  const list = lists.find((l) => l.path === path);
  if (!list) throw new Error(`no list at ${path}; lists: ${lists.map((l) => l.path).join(', ')}`);
  const validate = queryValidator({ ...list.filters, ...listParams(Object.keys(list.sorts).map((value) => ({ value, label: value }))) });
  const values: Record<string, unknown> = {
    ...(await validate(Object.fromEntries(new URLSearchParams(query)))),
    ...(companyId ? { company_id: companyId } : {}),
  };
  const sort = (values.sort as string | undefined) ?? list.defaultSort.sort;
  const dir = (values.dir as Dir | undefined) ?? (values.sort ? 'asc' : list.defaultSort.dir);
  const perPage = Number(values.per_page ?? DEFAULT_PER_PAGE);
  const position = positionOf(values, sortKeys(list.sorts[sort], dir), perPage, dir);
  const source = () => (list.keys ?? list.filtered)(values);
  const keys = pageKeys({ source, sort: list.sorts[sort], dir, tieBreak: list.tieBreak, ...position, limit: perPage + 1 });
  return {
    page: toNative(pageRows(list.columns(list.filtered(values), values), keys, list.sorts[sort], dir, list.tieBreak)),
    count: toNative(cappedCount(source(), list.countCap ?? DEFAULT_COUNT_CAP, list.countOrder)),
  };
}

async function main() {
  const args = process.argv.slice(2).filter((arg) => arg !== '--plan');
  const [url, path, query = '', companyId] = args;
  if (!url || !path) throw new Error('usage: explain-list.js DATABASE_URL /checks "result=failed" [company_id] [--plan]');
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query(`SET TimeZone = ${client.escapeLiteral(process.env.TIME_ZONE || 'UTC')}`);
    for (const [name, statement] of Object.entries(await listStatements(path, query, companyId))) {
      const times: number[] = [];
      let plan: string[] = [];
      for (let i = 0; i < RUNS; i++) {
        const { rows } = await client.query({
          text: `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`,
          values: statement.values,
          rowMode: 'array',
        });
        plan = rows.map((row) => String(row[0]));
        times.push(Number(/Execution Time: ([\d.]+) ms/.exec(plan.join('\n'))?.[1]));
      }
      // The first Buffers line is the top node's: everything the statement read.
      const top = plan.find((line) => /^\s*Buffers:/.test(line)) ?? '';
      const buffers = [...top.matchAll(/(?:hit|read)=(\d+)/g)].reduce((n, [, b]) => n + Number(b), 0);
      const median = times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
      console.log(`${path}?${query}${companyId ? ` (3PL ${companyId})` : ''} ${name}: ${median} ms, ${buffers} buffers`);
      if (process.argv.includes('--plan')) console.log(plan.join('\n'));
    }
  } finally {
    await client.end();
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
