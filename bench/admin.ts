// The admin group (`--only admin`): every admin page a supervisor opens, signed in, at the bench's
// dataset and at a smaller one (10,000 riders by default) in a database of its own, each served by its
// own service process. Per page: median and p95 of sequential requests (one connection) and of 4
// concurrent clients, the median at the smaller size and the ratio, against the targets. Then the
// isolation: the API's p99 with and without 4 slow admin pages running at once.
import crypto from 'node:crypto';
import { createSupervisor } from '../src/bench-entry';
import { AdminBrowser } from './admin-client';
import { ADMIN_CONNECTIONS, deepPageAtBoth, measurePage, ms, type AdminPageResult } from './admin-measure';
import { runIsolation, slowPages, type IsolationResult } from './admin-isolation';
import { adminPages, pagePasses, type AdminPage, type DatasetValues, type Derived } from './admin-pages';
import { benchLists, datasetValues } from './admin-values';
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
import type { BenchOptions } from './options';
import { startService, type RunningService } from './service';

const SUPERVISOR = 'rider-equipment-bench';

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

/** The comparison dataset's database: BENCH_DATABASE with its size. */
export const compareDatabase = (riders: number) => `${BENCH_DATABASE}_${riders}`;

/** A supervisor of all 3PLs in the database, with a fresh random password; signed in on `service`. */
async function supervisorFor(url: string): Promise<{ username: string; password: string }> {
  const password = crypto.randomBytes(18).toString('base64url');
  await withClient(url, (client) => createSupervisor(client, { username: SUPERVISOR, password }));
  return { username: SUPERVISOR, password };
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
