// The admin group (`--only admin`): every admin page a supervisor opens, signed in, at the bench's
// dataset and at a smaller one (10,000 riders by default) in a database of its own, each served by its
// own service process. Per page: median and p95 of sequential requests (one connection) and of 4
// concurrent clients, the median at the smaller size and the ratio, against the targets. Then the
// isolation: the API's p99 with and without 4 slow admin pages running at once.
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { adminLists, DEFAULT_ATTENTION, type ListResource, createSupervisor, sql, toNative } from '../src/bench-entry';

/** Every list the admin pages serve: the five lists and the rules of "Needs attention". */
const benchLists = adminLists(DEFAULT_ATTENTION);
import { AdminBrowser, connection, type Timed } from './admin-client';
import {
  ADMIN_TARGETS,
  adminPages,
  latencyStats,
  pagePasses,
  resolvePage,
  type AdminPage,
  type DatasetValues,
  type Derived,
  type LatencyStats,
  type SampleNeed,
} from './admin-pages';
import {
  BENCH_DATABASE,
  benchDatabaseUrl,
  ensureDataset,
  issueBenchToken,
  withClient,
  type BenchServer,
  type DatasetInfo,
} from './dataset';
import { runTeam, type TeamResult } from './admin-team';
import { runQueue, type QueueResult } from './admin-queue';
import { runAdminCsv, type AdminCsvResult } from './admin-csv';
import { findPgTool } from './pg-side';
import { runLoad, type LoadResult } from './http-load';
import type { BenchOptions } from './options';
import { startService, type RunningService } from './service';
import { median } from './stats';

const SUPERVISOR = 'rider-equipment-bench';
/** One request's bound: the service's statement timeout is 30 s by default; past this it counts as no answer. */
const REQUEST_TIMEOUT_MS = 60000;

export interface PageMeasure {
  /** Answers by status ("0": none, e.g. a timeout), the warm-up request included. */
  statuses: Record<string, number>;
  /** Answers whose status is not one of the page's (no answer included). */
  unexpected: number;
  /** Sequential requests on one connection, expected answers only. */
  one: LatencyStats;
  /** `connections` concurrent clients, each with its own connection (the bench's dataset only). */
  concurrent?: LatencyStats;
  /** Median size of the answer on the wire (compressed, as a browser asks). */
  bytes: number;
  /** The first error messages and unexpected answers, for the report. */
  notes: string[];
}

export interface AdminPageResult {
  name: string;
  page: AdminPage;
  main: PageMeasure;
  compare?: PageMeasure;
  /** main median over the comparison's median, one connection. */
  ratio: number;
  pass: boolean;
}

export interface IsolationRun {
  without: LoadResult;
  with: LoadResult;
  /** p99 with the slow pages over p99 without. */
  p99Ratio: number;
  /** The slow admin pages' answers while the API was measured. */
  admin: { statuses: Record<string, number>; latency: LatencyStats };
}

export interface IsolationResult {
  apiPath: string;
  connections: number;
  slowPages: string[];
  runs: IsolationRun[];
  medianP99Ratio: number;
  /** 503s: the API's (any non-2xx, as wrk counts them) and the slow admin pages'. */
  api503OrOther: number;
  admin503: number;
  pass: boolean;
}

export interface AdminResult {
  riders: number;
  compareRiders: number;
  compareDatabase: string;
  compareDataset?: Pick<DatasetInfo, 'counts' | 'reused' | 'loadSeconds' | 'marker'>;
  values: { main: DatasetValues; compare?: DatasetValues };
  skipped: Derived['skipped'];
  requests: number;
  connections: number;
  pages: AdminPageResult[];
  isolation?: IsolationResult;
  team?: TeamResult;
  /** The work queue for a team: Needs attention's pages and one batch (admin-queue.ts). */
  queue?: QueueResult;
  /** Each list's whole CSV beside psql's COPY of the same rows (admin-csv.ts). */
  csv?: AdminCsvResult[];
}

export const ADMIN_CONNECTIONS = 4;

/** The comparison dataset's database: BENCH_DATABASE with its size. */
export const compareDatabase = (riders: number) => `${BENCH_DATABASE}_${riders}`;

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

const count = (statuses: Record<string, number>, timed: Timed[]) => {
  for (const t of timed) statuses[String(t.status)] = (statuses[String(t.status)] ?? 0) + 1;
};

/** Up to `n` requests of `page`, one after the other on one connection; no new one after `seconds`. */
async function sequential(browser: AdminBrowser, page: AdminPage, values: DatasetValues, n: number, seconds: number): Promise<Timed[]> {
  const agent = connection();
  const started = performance.now();
  const out: Timed[] = [];
  try {
    for (let i = 0; i < n && (i === 0 || performance.now() - started < seconds * 1000); i++)
      out.push(await browser.get(resolvePage(page, values), agent, REQUEST_TIMEOUT_MS));
  } finally {
    agent.destroy();
  }
  return out;
}

interface Side {
  browser: AdminBrowser;
  values: DatasetValues;
}

function summarise(page: AdminPage, warm: Timed[], one: Timed[], concurrent?: Timed[]): PageMeasure {
  const expected = (t: Timed) => page.statuses.includes(t.status);
  const all = [...warm, ...one, ...(concurrent ?? [])];
  const statuses: Record<string, number> = {};
  count(statuses, all);
  return {
    statuses,
    unexpected: all.filter((t) => !expected(t)).length,
    one: latencyStats(one.filter(expected).map((t) => t.ms)),
    concurrent: concurrent ? latencyStats(concurrent.filter(expected).map((t) => t.ms)) : undefined,
    bytes: median(one.map((t) => t.bytes)),
    notes: all
      .filter((t) => !expected(t))
      .slice(0, 3)
      .map((t) => t.error ?? `answered ${t.status}`),
  };
}

/**
 * One page at both sizes: an unmeasured request at each (the page's code, plans and the pages of the
 * tables it reads), then `requests` sequential requests at each, alternating between the two so
 * that both see the same load of the (shared) machine, then 4 concurrent clients at the bench's size
 * sharing `requests` (rounded up to a multiple of 4, so that all 4 stay busy throughout).
 * No new request after `seconds` in each part (each makes at least one).
 */
async function measurePage(
  page: AdminPage,
  main: Side,
  compare: Side,
  settings: { requests: number; seconds: number },
): Promise<{ main: PageMeasure; compare: PageMeasure }> {
  const warmMain = await sequential(main.browser, page, main.values, 1, settings.seconds);
  const warmCompare = await sequential(compare.browser, page, compare.values, 1, settings.seconds);
  const agents = [connection(), connection()];
  const one: [Timed[], Timed[]] = [[], []];
  const started = performance.now();
  try {
    for (let i = 0; i < settings.requests && (i === 0 || performance.now() - started < settings.seconds * 1000); i++) {
      one[0].push(await main.browser.get(resolvePage(page, main.values), agents[0], REQUEST_TIMEOUT_MS));
      one[1].push(await compare.browser.get(resolvePage(page, compare.values), agents[1], REQUEST_TIMEOUT_MS));
    }
  } finally {
    agents.forEach((a) => a.destroy());
  }
  const concurrent = (
    await Promise.all(
      Array.from({ length: ADMIN_CONNECTIONS }, () =>
        sequential(main.browser, page, main.values, Math.ceil(settings.requests / ADMIN_CONNECTIONS), settings.seconds),
      ),
    )
  ).flat();
  return { main: summarise(page, warmMain, one[0], concurrent), compare: summarise(page, warmCompare, one[1]) };
}

/**
 * The deep page to measure at both sizes: `page` itself, or, when its page number is past the end of
 * the list at the smaller size (where a list of riders' rules is shorter), the last page there, found
 * by halving: the same page asked of both, not a past-the-end page that reads nothing at one size.
 */
export async function deepPageAtBoth(page: AdminPage, compare: Side): Promise<AdminPage> {
  const asked = Number(page.query.page);
  const pastEnd = async (n: number) => {
    const { status, body } = await compare.browser.text(
      resolvePage({ ...page, query: { ...page.query, page: String(n) } }, compare.values),
    );
    if (status !== 200) throw new Error(`${page.name}: page ${n} answered ${status}`);
    return body.includes('past the end');
  };
  if (!(await pastEnd(asked))) return page;
  let [low, high] = [1, asked]; // page `low` exists, page `high` is past the end
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (await pastEnd(mid)) high = mid;
    else low = mid;
  }
  const query = { ...page.query, page: String(low) };
  return { ...page, query, name: `${page.name.replace(/\bpage=\d+/, `page=${low}`)} (${asked} is past the end at the smaller size)` };
}

/** A supervisor of all 3PLs in the database, with a fresh random password; signed in on `service`. */
async function supervisorFor(url: string): Promise<{ username: string; password: string }> {
  const password = crypto.randomBytes(18).toString('base64url');
  await withClient(url, (client) => createSupervisor(client, { username: SUPERVISOR, password }));
  return { username: SUPERVISOR, password };
}

const ms = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : '-');

/** The slow pages for the isolation: the slowest deep or sorted list pages measured, else the lists' deep pages. */
export function slowPages(results: readonly AdminPageResult[], pages: readonly AdminPage[], n = ADMIN_CONNECTIONS): AdminPage[] {
  const measured = results
    .filter((r) => (r.page.list?.variant === 'deep' || r.page.list?.variant === 'sort') && r.main.unexpected === 0)
    .sort((a, b) => b.main.one.medianMs - a.main.one.medianMs)
    .map((r) => r.page);
  const deep = pages.filter((p) => p.list?.variant === 'deep' && !measured.some((m) => m.path === p.path && m.list?.variant === 'deep'));
  return [...measured, ...deep].slice(0, n);
}

async function runIsolation(
  service: RunningService,
  browser: AdminBrowser,
  values: DatasetValues,
  slow: AdminPage[],
  options: BenchOptions,
  log: (msg: string) => void,
): Promise<IsolationResult> {
  const { min, max } = values.ranges.rider;
  const apiPath = '/v2/assign-list';
  const target = { prefix: `${apiPath}?`, random: { param: 'rider_id', min, max } };
  const load = { connections: options.adminApiConnections, duration: options.duration, headers: service.headers };
  const runs: IsolationRun[] = [];
  for (let i = 0; i < options.repeat; i++) {
    if (options.warmup > 0) await runLoad(service.base, target, { ...load, duration: options.warmup });
    const without = await runLoad(service.base, target, load);
    let stop = false;
    const loops = slow.map(async (page) => {
      const agent = connection();
      const out: Timed[] = [];
      try {
        while (!stop) out.push(await browser.get(resolvePage(page, values), agent, REQUEST_TIMEOUT_MS));
      } finally {
        agent.destroy();
      }
      return out;
    });
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the slow pages in flight first
    let withSlow: LoadResult;
    try {
      withSlow = await runLoad(service.base, target, load);
    } finally {
      stop = true;
    }
    const answers = (await Promise.all(loops)).flat();
    const statuses: Record<string, number> = {};
    count(statuses, answers);
    const run: IsolationRun = {
      without,
      with: withSlow,
      p99Ratio: withSlow.p99Ms / without.p99Ms,
      admin: { statuses, latency: latencyStats(answers.filter((t) => t.status === 200).map((t) => t.ms)) },
    };
    runs.push(run);
    log(
      `  ${apiPath} by a random rider, ${load.connections} connections: p99 ${ms(without.p99Ms)} ms alone, ${ms(withSlow.p99Ms)} ms with ${slow.length} slow admin pages (${run.p99Ratio.toFixed(2)}x); ` +
        `non-2xx ${without.non2xx}/${withSlow.non2xx}; admin answers ${JSON.stringify(statuses)}, median ${ms(run.admin.latency.medianMs)} ms` +
        (options.repeat > 1 ? ` [run ${i + 1}/${options.repeat}]` : ''),
    );
  }
  const medianP99Ratio = median(runs.map((r) => r.p99Ratio));
  const api503OrOther = runs.reduce((n, r) => n + r.without.non2xx + r.with.non2xx + r.without.errors + r.with.errors, 0);
  const admin503 = runs.reduce((n, r) => n + (r.admin.statuses['503'] ?? 0), 0);
  return {
    apiPath,
    connections: load.connections,
    slowPages: slow.map((p) => p.name),
    runs,
    medianP99Ratio,
    api503OrOther,
    admin503,
    pass: medianP99Ratio <= ADMIN_TARGETS.maxIsolationP99Ratio && api503OrOther === 0 && admin503 === 0,
  };
}

/** The admin group: see the top of this file and docs/runs/ADMIN-BENCHMARKS.md. */
export async function runAdmin(
  server: BenchServer,
  dataset: DatasetInfo,
  options: BenchOptions,
  log: (msg: string) => void,
): Promise<AdminResult> {
  const derived = adminPages(benchLists, { deepPage: options.adminDeepPage, bothDirections: !options.adminAscendingOnly });
  const pages = options.adminPages ? derived.pages.filter((p) => options.adminPages!.test(p.name)) : derived.pages;
  for (const s of derived.skipped) log(`Not measured: ${s.list} filter ${s.filter} (${s.reason})`);

  if (options.adminQueueOnly) return queueOnly(server, derived, options, log);
  if (options.adminTeamOnly) return teamOnly(server, pages, derived, options, log);
  if (options.adminCsvOnly) return csvOnly(server, derived, options, log);

  const sameSize = options.compareRiders === options.riders;
  const compareDb = sameSize ? BENCH_DATABASE : compareDatabase(options.compareRiders);
  const compareUrl = benchDatabaseUrl(server, compareDb);
  const compareDataset = sameSize ? dataset : await ensureDataset(server, { ...options, riders: options.compareRiders }, log, compareDb);

  // The same page at both sizes: the values sampled at the bench's size (the busiest 3PL, patroller,
  // item...) are asked of the smaller dataset too; only the drawn ids come from each one's range.
  const mainValues = await withClient(server.url, (client) => datasetValues(client, derived.samples));
  const compareOwn = await withClient(compareUrl, (client) => datasetValues(client, derived.samples));
  const values = { main: mainValues, compare: { samples: mainValues.samples, ranges: compareOwn.ranges } };
  const result: AdminResult = {
    riders: options.riders,
    compareRiders: options.compareRiders,
    compareDatabase: compareDb,
    compareDataset: {
      counts: compareDataset.counts,
      reused: compareDataset.reused,
      loadSeconds: compareDataset.loadSeconds,
      marker: compareDataset.marker,
    },
    values,
    skipped: derived.skipped,
    requests: options.adminRequests,
    connections: ADMIN_CONNECTIONS,
    pages: [],
  };

  const mainLogin = await supervisorFor(server.url);
  const compareLogin = await supervisorFor(compareUrl);
  const main = await startService(server.url, await issueBenchToken(server.url));
  try {
    const compare = await startService(compareUrl, await issueBenchToken(compareUrl));
    try {
      log(
        `Services: pid ${main.pid} on ${main.base} (${options.riders} riders), pid ${compare.pid} on ${compare.base} (${options.compareRiders} riders)`,
      );
      const mainBrowser = await AdminBrowser.signIn(main.base, mainLogin.username, mainLogin.password);
      const compareBrowser = await AdminBrowser.signIn(compare.base, compareLogin.username, compareLogin.password);
      const range = (v: DatasetValues) =>
        `riders ${v.ranges.rider.min}..${v.ranges.rider.max}, checks ${v.ranges.check.min}..${v.ranges.check.max}`;
      log(
        `Values (the most frequent at ${options.riders} riders, asked at both sizes): ${Object.entries(values.main.samples)
          .map(([k, x]) => `${k} = ${x.join(':')}`)
          .join(', ')}; drawn: ${range(values.main)} and ${range(values.compare)}`,
      );
      log(
        `\nAdmin pages (${pages.length}), signed in, each after one unmeasured request: ${options.adminRequests} sequential requests at ${options.riders} and ` +
          `${options.compareRiders} riders in turn, then ${ADMIN_CONNECTIONS} clients at once sharing ${options.adminRequests} (${ADMIN_CONNECTIONS} × ${Math.ceil(options.adminRequests / ADMIN_CONNECTIONS)}) at ${options.riders}`,
      );
      const settings = { requests: options.adminRequests, seconds: options.adminPageSeconds };
      for (const listed of pages) {
        const page =
          listed.list?.variant === 'deep' ? await deepPageAtBoth(listed, { browser: compareBrowser, values: values.compare }) : listed;
        const { main: m, compare: c } = await measurePage(
          page,
          { browser: mainBrowser, values: values.main },
          { browser: compareBrowser, values: values.compare },
          settings,
        );
        const ratio = m.one.medianMs / c.one.medianMs;
        const pass = pagePasses({ medianMs: m.one.medianMs, compareMedianMs: c.one.medianMs, unexpected: m.unexpected + c.unexpected });
        result.pages.push({ name: page.name, page, main: m, compare: c, ratio, pass });
        log(
          `  ${page.name}: ${ms(m.one.medianMs)}/${ms(m.one.p95Ms)} ms (1), ${ms(m.concurrent?.medianMs)}/${ms(m.concurrent?.p95Ms)} ms (${ADMIN_CONNECTIONS}), ` +
            `${ms(c.one.medianMs)} ms at ${options.compareRiders} (${Number.isFinite(ratio) ? ratio.toFixed(2) : '-'}x) ${pass ? 'PASS' : 'FAIL'}` +
            `${m.notes.length || c.notes.length ? ` [${[...m.notes, ...c.notes].join('; ')}]` : ''}`,
        );
      }
      await compare.stop();
      const slow = slowPages(result.pages, derived.pages);
      log(
        `\nIsolation: ${options.duration} s of the API, alone and with ${slow.length} slow admin pages in a loop: ${slow.map((p) => p.name).join(', ')}`,
      );
      result.isolation = await runIsolation(main, mainBrowser, values.main, slow, options, log);
      if (options.adminTeam > 0) {
        log(
          `\nTeam: ${options.adminTeam} supervisors on random pages for ${options.duration} s, then beside a client on the deep pages and the API`,
        );
        result.team = await runTeam(main, mainBrowser, values.main, pages, options, log);
      }
      log(`\nThe work queue for a team: Needs attention's pages and one batch, at ${options.riders} riders`);
      result.queue = await runQueue(server.url, mainBrowser, options.riders, log);
    } finally {
      await compare.stop();
    }
  } finally {
    await main.stop();
  }
  return result;
}

/**
 * A scenario on the bench's dataset alone: one service, its supervisor signed in; `work` gives what the
 * scenario measured (its values, connections and its own part of the result).
 */
async function alone(
  server: BenchServer,
  derived: Derived,
  options: BenchOptions,
  log: (msg: string) => void,
  work: (service: RunningService, browser: AdminBrowser) => Promise<Pick<AdminResult, 'values' | 'connections' | 'team' | 'queue' | 'csv'>>,
): Promise<AdminResult> {
  const login = await supervisorFor(server.url);
  const service = await startService(server.url, await issueBenchToken(server.url));
  try {
    log(`Service: pid ${service.pid} on ${service.base} (${options.riders} riders)`);
    const browser = await AdminBrowser.signIn(service.base, login.username, login.password);
    const measured = await work(service, browser);
    return {
      riders: options.riders,
      compareRiders: options.riders,
      compareDatabase: BENCH_DATABASE,
      skipped: derived.skipped,
      requests: 0,
      pages: [],
      ...measured,
    };
  } finally {
    await service.stop();
  }
}

/** `--admin-team-only`: the team scenario on the bench's dataset, nothing else. */
async function teamOnly(
  server: BenchServer,
  pages: AdminPage[],
  derived: Derived,
  options: BenchOptions,
  log: (msg: string) => void,
): Promise<AdminResult> {
  const values = await withClient(server.url, (client) => datasetValues(client, derived.samples));
  return alone(server, derived, options, log, async (service, browser) => {
    log(
      `\nTeam: ${options.adminTeam} supervisors on ${pages.length} random pages for ${options.duration} s, then beside a client on the deep pages and the API`,
    );
    const team = await runTeam(service, browser, values, pages, { ...options, adminTeam: Math.max(1, options.adminTeam) }, log);
    return { values: { main: values }, connections: options.adminTeam, team };
  });
}

/** The values of a scenario that samples none from the dataset. */
const noValues: DatasetValues = { samples: {}, ranges: { rider: { min: 0, max: 0 }, check: { min: 0, max: 0 } } };

/** `--admin-queue-only`: the work queue's pages and one batch on the bench's dataset, nothing else. */
function queueOnly(server: BenchServer, derived: Derived, options: BenchOptions, log: (msg: string) => void): Promise<AdminResult> {
  return alone(server, derived, options, log, async (_service, browser) => {
    log(`\nThe work queue for a team: Needs attention's pages and one batch, at ${options.riders} riders`);
    const queue = await runQueue(server.url, browser, options.riders, log);
    return { values: { main: noValues }, connections: 1, queue };
  });
}

/** `--admin-csv-only`: each list's whole CSV beside psql's COPY of the same rows, nothing else. */
function csvOnly(server: BenchServer, derived: Derived, options: BenchOptions, log: (msg: string) => void): Promise<AdminResult> {
  const psql = findPgTool('psql');
  if (!psql) throw new Error('--admin-csv-only needs psql (PATH, /usr/lib/postgresql/*/bin) for the COPY it compares each download with');
  return alone(server, derived, options, log, async (_service, browser) => {
    log(
      `\nThe admin lists' CSVs, each beside psql's COPY of the same rows (${options.streamRuns} runs, medians), at ${options.riders} riders`,
    );
    // --admin-pages: only the lists whose path matches (a partial run; its --record table holds only them).
    const lists = options.adminPages ? benchLists.filter((list) => options.adminPages!.test(list.path)) : benchLists;
    const csv = await runAdminCsv(browser, lists, { psql, url: server.url, runs: options.streamRuns }, log);
    return { values: { main: noValues }, connections: 1, csv };
  });
}
