// The team scenario of the admin group (`--admin-team N`, default 8): N supervisors opening admin pages
// without pause, each on its own connection, each request a page drawn at random from every page the
// group measures (overview, Needs attention, lists first, deep, filtered and sorted, one check, one
// rider, search, lookup); then the same beside one more client looping on the lists' deep pages and
// the API under load. Figures: pages per second, p50/p95/max of the answers, every status; the API's
// requests per second alone and beside the team. Targets (issue 43): p95 at most 300 ms up to 100,000
// riders and 450 ms past that, every answer one the page gives, the API at least 0.7× its rate alone.
import type { AdminBrowser, Timed } from './admin-client';
import { connection } from './admin-client';
import { latencyStats, resolvePage, type AdminPage, type DatasetValues, type LatencyStats } from './admin-pages';
import { runLoad, type LoadResult } from './http-load';
import type { BenchOptions } from './options';
import type { RunningService } from './service';

const REQUEST_TIMEOUT_MS = 60000;

export const TEAM_TARGETS = {
  /** p95 of the supervisors' answers, by the dataset's size. */
  p95Ms: (riders: number) => (riders <= 100000 ? 300 : 450),
  /** The API's requests per second beside the team, over alone. */
  minApiRatio: 0.7,
};

export interface TeamLoad {
  answers: number;
  pagesPerSecond: number;
  statuses: Record<string, number>;
  /** Answers that are not one the page gives (200 for all but the batch report of a whole 3PL: 400). */
  unexpected: number;
  latency: LatencyStats;
  /** The slowest pages' names with their answer time, for the report. */
  slowest: string[];
  /** The pages that took the largest share of the clients' time (the ones to make cheaper first). */
  heaviest: Array<{ page: string; answers: number; medianMs: number; share: number }>;
}

export interface TeamResult {
  supervisors: number;
  seconds: number;
  pages: number;
  deepPages: string[];
  alone: TeamLoad;
  together: TeamLoad;
  deep: TeamLoad;
  api: { path: string; connections: number; alone: LoadResult; beside: LoadResult; ratio: number };
  targets: { p95Ms: number; minApiRatio: number };
  pass: boolean;
}

interface Answer extends Timed {
  page: AdminPage;
}

/** Clients each asking a random page of `pages` after the other, until `stop()`. */
function clients(n: number, pages: readonly AdminPage[], browser: AdminBrowser, values: DatasetValues) {
  let stopped = false;
  const started = performance.now();
  const runs = Array.from({ length: n }, async () => {
    const agent = connection();
    const out: Answer[] = [];
    try {
      while (!stopped) {
        const page = pages[Math.floor(Math.random() * pages.length)];
        out.push({ ...(await browser.get(resolvePage(page, values), agent, REQUEST_TIMEOUT_MS)), page });
      }
    } finally {
      agent.destroy();
    }
    return out;
  });
  return {
    async stop(): Promise<TeamLoad> {
      stopped = true;
      const answers = (await Promise.all(runs)).flat();
      return summary(answers, (performance.now() - started) / 1000);
    },
  };
}

function summary(answers: Answer[], seconds: number): TeamLoad {
  const statuses: Record<string, number> = {};
  for (const a of answers) statuses[String(a.status)] = (statuses[String(a.status)] ?? 0) + 1;
  const expected = answers.filter((a) => a.page.statuses.includes(a.status));
  return {
    answers: answers.length,
    pagesPerSecond: answers.length / seconds,
    statuses,
    unexpected: answers.length - expected.length,
    latency: latencyStats(expected.map((a) => a.ms)),
    slowest: [...answers]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 3)
      .map((a) => `${a.page.name} ${a.ms.toFixed(0)} ms (${a.status})`),
    heaviest: heaviest(answers),
  };
}

/** The pages by their share of the clients' time, largest first (the first `n`). */
export function heaviest(answers: ReadonlyArray<{ page: Pick<AdminPage, 'name'>; ms: number }>, n = 8): TeamLoad['heaviest'] {
  const byPage = new Map<string, number[]>();
  for (const a of answers) byPage.set(a.page.name, [...(byPage.get(a.page.name) ?? []), a.ms]);
  const total = answers.reduce((sum, a) => sum + a.ms, 0) || 1;
  return [...byPage]
    .map(([page, ms]) => ({
      page,
      answers: ms.length,
      medianMs: latencyStats(ms).medianMs,
      share: ms.reduce((sum, m) => sum + m, 0) / total,
    }))
    .sort((a, b) => b.share - a.share)
    .slice(0, n);
}

const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

export async function runTeam(
  service: RunningService,
  browser: AdminBrowser,
  values: DatasetValues,
  pages: readonly AdminPage[],
  options: BenchOptions,
  log: (msg: string) => void,
): Promise<TeamResult> {
  const n = options.adminTeam;
  const seconds = options.duration;
  const deepPages = pages.filter((p) => p.list?.variant === 'deep');
  const { min, max } = values.ranges.rider;
  const path = '/v2/assign-list';
  const target = { prefix: `${path}?`, random: { param: 'rider_id', min, max } };
  const load = { connections: options.adminApiConnections, duration: seconds, headers: service.headers };

  if (options.warmup > 0) {
    const warming = clients(n, pages, browser, values);
    await pause(options.warmup);
    await warming.stop();
  }
  const team = clients(n, pages, browser, values);
  await pause(seconds);
  const alone = await team.stop();
  log(line(`${n} supervisors`, alone));
  log(
    `  their time went most to: ${alone.heaviest.map((h) => `${h.page} ${(100 * h.share).toFixed(1)}% (${h.answers}, median ${ms(h.medianMs)} ms)`).join('; ')}`,
  );

  const apiAlone = await runLoad(service.base, target, load);
  log(`  ${path} by a random rider, ${load.connections} connections, alone: ${apiAlone.rps.toFixed(0)} req/s, non-2xx ${apiAlone.non2xx}`);

  const together = clients(n, pages, browser, values);
  const deep = clients(1, deepPages.length ? deepPages : pages, browser, values);
  const [api] = await Promise.allSettled([runLoad(service.base, target, load)]);
  const [teamBeside, deepBeside] = await Promise.all([together.stop(), deep.stop()]);
  if (api.status === 'rejected') throw api.reason;
  const beside = api.value;
  const ratio = beside.rps / apiAlone.rps;
  log(line(`${n} supervisors beside 1 client on the deep pages and the API`, teamBeside));
  log(line('the client on the deep pages', deepBeside));
  log(
    `  ${path} beside them: ${beside.rps.toFixed(0)} req/s (${ratio.toFixed(2)}x alone), non-2xx ${beside.non2xx}, errors ${beside.errors}`,
  );

  const targets = { p95Ms: TEAM_TARGETS.p95Ms(options.riders), minApiRatio: TEAM_TARGETS.minApiRatio };
  const ok = (t: TeamLoad) => t.unexpected === 0 && t.latency.p95Ms <= targets.p95Ms;
  return {
    supervisors: n,
    seconds,
    pages: pages.length,
    deepPages: deepPages.map((p) => p.name),
    alone,
    together: teamBeside,
    deep: deepBeside,
    api: { path, connections: load.connections, alone: apiAlone, beside, ratio },
    targets,
    pass:
      ok(alone) &&
      ok(teamBeside) &&
      deepBeside.unexpected === 0 &&
      ratio >= targets.minApiRatio &&
      beside.non2xx + beside.errors + apiAlone.non2xx + apiAlone.errors === 0,
  };
}

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '-');

function line(what: string, t: TeamLoad): string {
  return (
    `  ${what}: ${t.answers} pages, ${t.pagesPerSecond.toFixed(1)}/s, p50 ${ms(t.latency.medianMs)} ms, p95 ${ms(t.latency.p95Ms)} ms, ` +
    `max ${ms(t.latency.maxMs)} ms; ${JSON.stringify(t.statuses)}, unexpected ${t.unexpected}; slowest: ${t.slowest.join(', ')}`
  );
}
