// The isolation of the admin group (bench/admin.ts): the API's p99 alone and beside the slowest admin
// pages in a loop, and which pages those are.
import { connection, type AdminBrowser, type Timed } from './admin-client';
import { ADMIN_TARGETS, latencyStats, resolvePage, type AdminPage, type DatasetValues, type LatencyStats } from './admin-pages';
import { ADMIN_CONNECTIONS, REQUEST_TIMEOUT_MS, count, ms, type AdminPageResult } from './admin-measure';
import { runLoad, type LoadResult } from './http-load';
import type { BenchOptions } from './options';
import type { RunningService } from './service';
import { median } from './stats';

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

/** The slow pages for the isolation: the slowest deep or sorted list pages measured, else the lists' deep pages. */
export function slowPages(results: readonly AdminPageResult[], pages: readonly AdminPage[], n = ADMIN_CONNECTIONS): AdminPage[] {
  const measured = results
    .filter((r) => (r.page.list?.variant === 'deep' || r.page.list?.variant === 'sort') && r.main.unexpected === 0)
    .sort((a, b) => b.main.one.medianMs - a.main.one.medianMs)
    .map((r) => r.page);
  const deep = pages.filter((p) => p.list?.variant === 'deep' && !measured.some((m) => m.path === p.path && m.list?.variant === 'deep'));
  return [...measured, ...deep].slice(0, n);
}

export async function runIsolation(
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
