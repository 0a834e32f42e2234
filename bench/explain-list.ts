// The statements of one admin list page, run under EXPLAIN (ANALYZE, BUFFERS) five times each: the
// median time and the buffers read, and with --plan the last plan in full. For measuring an index or a
// filter on a big copy:
//
//   npm run -s build && node dist/bench/explain-list.js postgres://…/dev100k /checks 'result=failed&page=400' [company_id] [--plan]
//
// The statements are the page's own: readPage() of src/admin/list-page.ts reads the page (its rows,
// and its exact total or capped count) with this tool's runner, which runs each statement under
// EXPLAIN before giving its rows back, on a connection made as the service's admin pool makes its own
// (no parallel workers, the service's time zone; no statement timeout unless ADMIN_STATEMENT_TIMEOUT_MS
// is set). The query is the page's address as its links carry it (ids, not names). A company id plays
// a supervisor limited to that 3PL.
//
//   node dist/bench/explain-list.js postgres://…/<database> --search|--3pl-sorts [--record] [--plan]
//
// --search: the rider lookup (/admin/lookup/riders) and the search (/admin/search) for SEARCH_TERMS,
// the statements their handlers build (src/admin/choices.ts, src/admin/rider-page.ts). --3pl-sorts:
// the lists of SORTED_LISTS sorted by 3PL (sortedPages), read by readPage as above. Each statement
// under EXPLAIN five times; with --record, the table into its region `explain-search@<riders>` or
// `explain-3pl-sorts@<riders>` of docs/runs/ADMIN-BENCHMARKS.md (bench/record.ts).
//
// Only reads: EXPLAIN ANALYZE of SELECTs.
import path from 'node:path';
import type pg from 'pg';
import {
  loadConfig,
  DEFAULT_ATTENTION,
  toNative,
  type NativeQuery,
  createPool,
  type Pool,
  projectRoot,
  StreamLimit,
  choiceSource,
  lookupAsks,
  SUGGESTIONS,
  listContext,
  pageValues,
  readPage,
  type PageRunner,
  type PageStatement,
  type Position,
  DEFAULT_PER_PAGE,
  adminLists,
  searchStatements,
  riderSuggestions,
} from '../src/bench-entry';
import { BENCH_DOCS_DIR, recordInDocs, toolHeader } from './record';

export const RUNS = 5;

/** The terms of the search's table: common name parts, a name of two words surname first, and one letter. */
export const SEARCH_TERMS = ['mo', 'moh', 'ali', 'ahmed', 'mohammed', 'Malik, Reem', 'x'] as const;

export interface Explained {
  /** Which statement: `page` (the rows), `count` (capped), `total N` (the exact total's), `lookup`, `search rows`, `search count`. */
  name: string;
  /** Median execution time, ms. */
  ms: number;
  /** Buffers the top node read (hit and read): everything the statement read. */
  buffers: number;
  /** Rows the statement gave when run once more, plainly. */
  rows: number;
  /** The last run's plan. */
  plan: string[];
  /** The statement explained. */
  statement: NativeQuery;
}

/** `statement` under EXPLAIN (ANALYZE, BUFFERS) `runs` times: the median time, the top node's buffers and the last plan. */
export async function explainMedian(
  client: pg.ClientBase,
  statement: NativeQuery,
  runs = RUNS,
): Promise<Omit<Explained, 'name' | 'rows' | 'statement'>> {
  const times: number[] = [];
  let plan: string[] = [];
  for (let i = 0; i < runs; i++) {
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
  return { ms: times.sort((a, b) => a - b)[Math.floor(runs / 2)], buffers, plan };
}

/** A connection pool as the service's admin pool is made (its session settings), for this tool's statements. */
export function adminPool(url: string): Pool {
  const env = { ...process.env, DATABASE_URL: url, ADMIN_STATEMENT_TIMEOUT_MS: process.env.ADMIN_STATEMENT_TIMEOUT_MS ?? '0' };
  return createPool(url, loadConfig(env), (message) => console.error(message), 'admin');
}

type Explain = (statement: NativeQuery, name: string) => Promise<{ rows: Record<string, unknown>[]; explained: Explained }>;

/** One statement after another on one connection of `pool`, each explained, then run for its rows. */
async function onOneConnection<T>(
  pool: Pool,
  runs: number,
  work: (explain: Explain) => Promise<T>,
): Promise<{ result: T; explained: Explained[] }> {
  const client = await pool.acquire();
  const explained: Explained[] = [];
  let queue: Promise<unknown> = Promise.resolve();
  const explain: Explain = (statement, name) => {
    const next = queue.then(async () => {
      const measured = await explainMedian(client, statement, runs);
      const { rows } = await client.query(statement.text, statement.values);
      const entry = { name, ...measured, rows: rows.length, statement };
      explained.push(entry);
      return { rows: rows as Record<string, unknown>[], explained: entry };
    });
    queue = next.catch(() => undefined);
    return next;
  };
  try {
    return { result: await work(explain), explained };
  } finally {
    client.release();
  }
}

/**
 * The page of list `listPath` for `query` (the page's query string), read by the service's readPage()
 * with each statement explained `runs` times; `companyId` plays a supervisor of that 3PL only.
 */
export async function explainListPage(pool: Pool, listPath: string, query: string, companyId?: string, runs = RUNS): Promise<Explained[]> {
  // The rule lists with the default thresholds (the ATTENTION_* settings unset).
  const lists = adminLists(DEFAULT_ATTENTION);
  const list = lists.find((l) => l.path === listPath);
  if (!list) throw new Error(`no list at ${listPath}; lists: ${lists.map((l) => l.path).join(', ')}`);
  const context = listContext(list, { pool, streamPool: pool, streamLimit: new StreamLimit(1), choices: choiceSource(pool), tabs: [] });
  const values = await pageValues(context, Object.fromEntries(new URLSearchParams(query)), companyId ? { company_id: companyId } : {});
  const perPage = Number(values.per_page ?? DEFAULT_PER_PAGE);
  const { explained } = await onOneConnection(pool, runs, (explain) => {
    let totals = 0;
    const nameOf = (which: PageStatement) => (which === 'rows' ? 'page' : which === 'count' ? 'count' : `total ${++totals}`);
    const runner: PageRunner = async <T extends object>(statement: NativeQuery, which: PageStatement) =>
      (await explain(statement, nameOf(which))).rows as T[];
    return readPage(context, values, values.position as Position, perPage, runner);
  });
  return explained;
}

export interface SearchRow {
  term: string;
  /** Absent where the lookup asks nothing (fewer than two characters). */
  lookup?: Explained;
  rows: Explained;
  count: Explained;
  /** Riders the search's count found, up to its cap + 1. */
  found: number;
}

/** The lookup's and the search's statements for each term, for a supervisor of every 3PL, each explained `runs` times. */
export async function explainSearch(pool: Pool, terms: readonly string[] = SEARCH_TERMS, runs = RUNS): Promise<SearchRow[]> {
  const { result } = await onOneConnection(pool, runs, async (explain) => {
    const out: SearchRow[] = [];
    for (const term of terms) {
      const search = searchStatements(term, {});
      const lookup = lookupAsks(term) ? await explain(toNative(riderSuggestions(term, {}, SUGGESTIONS)), 'lookup') : undefined;
      const rows = await explain(toNative(search.rows), 'search rows');
      const count = await explain(toNative(search.count), 'search count');
      out.push({ term, lookup: lookup?.explained, rows: rows.explained, count: count.explained, found: Number(count.rows[0]?.total) });
    }
    return out;
  });
  return result;
}

/** The search's table as --record writes it: per term, each statement's median ms and buffers, and what it found. */
export function searchTable(rows: readonly SearchRow[]): string {
  const cell = (e: Explained | undefined) => (e ? `${e.ms.toFixed(2)} | ${e.buffers}` : '- | -');
  return [
    '| term | lookup ms | buffers | search rows ms | buffers | search count ms | buffers | counted |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.term.replace(/\|/g, '\\|')} | ${cell(r.lookup)} | ${cell(r.rows)} | ${cell(r.count)} | ${r.found} |`),
  ].join('\n');
}

/** The lists sorted by 3PL (migration 019's (3PL, date) indexes), and the pages of each measured for --3pl-sorts. */
export const SORTED_LISTS = ['/checks', '/equipment/assignments', '/equipment/returns', '/equipment/exchanges'] as const;
export const sortedPages = (company: string) => [
  { name: 'page 1', query: 'sort=3pl&dir=asc' },
  { name: 'page 400 from the end', query: 'sort=3pl&dir=desc&page=400' },
  { name: `one 3PL (${company})`, query: new URLSearchParams({ sort: '3pl', dir: 'asc', '3pl': company }).toString() },
];

export interface SortedRow {
  list: string;
  pages: Array<{ name: string; query: string; statements: Explained[] }>;
}

/** Each list of SORTED_LISTS sorted by 3PL: its first page, its page 400 the other way, and one 3PL's first page (the one with the most riders). */
export async function explainSorts(pool: Pool, runs = RUNS): Promise<SortedRow[]> {
  const { rows } = await pool.query<{ name: string }>(
    'SELECT c.name FROM companies c JOIN riders r ON r.company_id = c.id GROUP BY c.id, c.name ORDER BY count(*) DESC, c.name LIMIT 1',
  );
  const out: SortedRow[] = [];
  for (const list of SORTED_LISTS) {
    const pages: SortedRow['pages'] = [];
    for (const page of sortedPages(rows[0]?.name ?? ''))
      pages.push({ ...page, statements: await explainListPage(pool, list, page.query, undefined, runs) });
    out.push({ list, pages });
  }
  return out;
}

/** The sorted lists' table as --record writes it: per list and page, the page's rows and its count, median ms. */
export function sortsTable(rows: readonly SortedRow[]): string {
  const names = rows[0]?.pages.map((p) => p.name) ?? [];
  const ms = (statements: Explained[], name: string) => statements.find((e) => e.name === name)?.ms.toFixed(2) ?? '-';
  return [
    `| list | ${names.map((n) => n.replace(/\|/g, '\\|')).join(' | ')} |`,
    `|---|${names.map(() => '---:').join('|')}|`,
    ...rows.map((r) => `| ${r.list} | ${r.pages.map((p) => `${ms(p.statements, 'page')} / ${ms(p.statements, 'count')}`).join(' | ')} |`),
  ].join('\n');
}

const USAGE = [
  'usage: explain-list.js DATABASE_URL /checks "result=failed" [company_id] [--plan]',
  '       explain-list.js DATABASE_URL --search|--3pl-sorts [--record] [--plan]',
].join('\n');

/** `--record`: one table into its region `<key>@<riders>` of docs/runs/ADMIN-BENCHMARKS.md, under a line naming the run. */
async function record(pool: Pool, key: string, flag: string, title: string, body: string): Promise<void> {
  const { rows } = await pool.query<{ riders: string; version: string }>(
    'SELECT (SELECT count(*) FROM riders) AS riders, version() AS version',
  );
  const riders = Number(rows[0].riders);
  const header = toolHeader(`node dist/bench/explain-list.js … ${flag} --record`, riders, rows[0].version);
  const { written, missing } = recordInDocs(path.join(projectRoot, BENCH_DOCS_DIR), [{ key, title, body }], riders, header);
  console.error(`--record: docs/ ${written.length ? `region written: ${written.join(', ')}` : `no region ${missing.join(', ')}`}`);
}

async function main() {
  const args = process.argv.slice(2);
  const flags = new Set(args.filter((arg) => arg.startsWith('--')));
  const [url, listPath, query = '', companyId] = args.filter((arg) => !arg.startsWith('--'));
  const set = flags.has('--search') ? '--search' : flags.has('--3pl-sorts') ? '--3pl-sorts' : undefined;
  const unknown = [...flags].filter((flag) => !['--plan', '--search', '--3pl-sorts', '--record'].includes(flag));
  if (
    unknown.length ||
    !url ||
    (!listPath && !set) ||
    (set && listPath) ||
    (flags.has('--record') && !set) ||
    (flags.has('--search') && flags.has('--3pl-sorts'))
  )
    throw new Error(USAGE);
  const pool = adminPool(url);
  const print = (title: string, e: Explained) => {
    console.log(`${title} ${e.name}: ${e.ms} ms, ${e.buffers} buffers`);
    if (flags.has('--plan')) console.log(e.plan.join('\n'));
  };
  try {
    if (set === '--search') {
      const rows = await explainSearch(pool);
      for (const row of rows) for (const e of [row.lookup, row.rows, row.count]) if (e) print(`q=${row.term}`, e);
      console.log(`\n${searchTable(rows)}`);
      if (flags.has('--record'))
        await record(
          pool,
          'explain-search',
          set,
          `EXPLAIN (ANALYZE, BUFFERS), median of ${RUNS}: ms, and the top node's buffers`,
          searchTable(rows),
        );
    } else if (set === '--3pl-sorts') {
      const rows = await explainSorts(pool);
      for (const row of rows) for (const page of row.pages) for (const e of page.statements) print(`${row.list}?${page.query}`, e);
      console.log(`\n${sortsTable(rows)}`);
      if (flags.has('--record'))
        await record(
          pool,
          'explain-3pl-sorts',
          set,
          `EXPLAIN (ANALYZE, BUFFERS), median of ${RUNS}: the page's rows / its count, ms`,
          sortsTable(rows),
        );
    } else {
      const title = `${listPath}?${query}${companyId ? ` (3PL ${companyId})` : ''}`;
      for (const e of await explainListPage(pool, listPath, query, companyId)) print(title, e);
    }
  } finally {
    await pool.end();
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
