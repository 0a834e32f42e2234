// Runs the scenarios: each HTTP measurement is followed at once by PostgreSQL alone on the same SQL,
// so that both see the same machine load (the machine is shared; figures are noisy).
import { fetchBytes, fetchStream, runLoad, type LoadResult } from './http-load';
import {
  isUnfinished,
  runCopy,
  runPgbench,
  unfinishedText,
  type CopyResult,
  type PgbenchOutcome,
  type PgbenchResult,
  type PgTool,
} from './pg-side';
import { loadTarget, naivePageScript, pathMaker, serviceScript, serviceSql, type LoadScenario, type OperationPath } from './scenarios';
import { inlineParameters } from './pgbench-sql';
import { RssWatch, type RunningService } from './service';
import { median, medianOf } from './stats';

export interface Settings {
  duration: number;
  warmup: number;
  connections: number;
  dateConnections: number;
  repeat: number;
  pgbenchMode: string;
  /** Seconds pgbench may run past `duration` to finish transactions in flight before it is stopped. */
  pgbenchGrace: number;
  streamRuns: number;
}

export interface Tools {
  pgbench?: PgTool;
  psql?: PgTool;
}

export type HttpRun = LoadResult & { rssPeakMB: number; rssSampledMaxMB: number };

export interface LoadScenarioResult {
  group: LoadScenario['group'];
  endpoint: string;
  label: string;
  connections: number;
  noRiderTarget: boolean;
  /** Medians over the repeats (see pgbenchMedian for runs that did not finish). */
  http: HttpRun;
  /** The bare server on the same SQL (bare-server.ts), same load, same run; absent when not measured. */
  bare?: LoadResult;
  /** The service's req/s over the bare server's, per run (both in the same run), median over the runs. */
  bareRatio?: number;
  /** Draws whose answers were compared byte for byte between the service and the bare server. */
  bareChecked?: number;
  pgbench?: PgbenchOutcome;
  naive?: PgbenchOutcome;
  runs: { http: HttpRun[]; bare: LoadResult[]; pgbench: PgbenchOutcome[]; naive: PgbenchOutcome[] };
  pgbenchScript?: string;
  pgbenchDefines?: Record<string, string>;
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/**
 * The median over repeats of pgbench runs of which some may not have finished. Such a run ranks
 * below every finished one, so the median is "did not finish" when at least half did not finish;
 * otherwise it is the median of the runs that finished (each run stays in `runs`).
 */
export function pgbenchMedian(runs: readonly PgbenchOutcome[]): PgbenchOutcome | undefined {
  if (runs.length === 0) return undefined;
  const unfinished = runs.filter(isUnfinished);
  if (2 * unfinished.length >= runs.length) return { didNotFinishSeconds: Math.max(...unfinished.map((r) => r.didNotFinishSeconds)) };
  return medianOf(runs.filter((r): r is PgbenchResult => !isUnfinished(r)));
}

/** How many draws of a scenario are compared byte for byte between the service and the bare server. */
const BYTE_CHECKS = 20;

/**
 * The bare server must send exactly the service's bytes, or its speed says nothing: the same URLs
 * (fresh draws of the random parameter) are asked of both and their bodies compared.
 */
async function checkSameBytes(scenario: LoadScenario, service: RunningService, bareBase: string): Promise<number> {
  const next = pathMaker(loadTarget(scenario));
  for (let i = 0; i < BYTE_CHECKS; i++) {
    const path = next();
    const [ours, bare] = await Promise.all([fetchBytes(`${service.base}${path}`, service.headers), fetchBytes(`${bareBase}${path}`, {})]);
    if (ours.status !== 200 || bare.status !== 200)
      throw new Error(`GET ${path}: the service answered ${ours.status}, the bare server ${bare.status}`);
    if (!ours.body.equals(bare.body))
      throw new Error(
        `GET ${path}: the bare server's answer differs from the service's (${bare.body.length} vs ${ours.body.length} bytes)`,
      );
  }
  return BYTE_CHECKS;
}

export async function runLoadScenario(
  scenario: LoadScenario,
  service: RunningService,
  dbUrl: string,
  tools: Tools,
  settings: Settings,
  log: (msg: string) => void,
  bareBase?: string,
): Promise<LoadScenarioResult> {
  const target = loadTarget(scenario);
  const script = await serviceScript(scenario);
  const naive = scenario.naive ? naivePageScript(scenario.naive.page) : undefined;
  const connections = scenario.group === 'date' ? settings.dateConnections : settings.connections;
  const load = { connections, duration: settings.duration, headers: service.headers };
  const pgbenchOptions = { connections, duration: settings.duration, graceSeconds: settings.pgbenchGrace, mode: settings.pgbenchMode };
  const runs: LoadScenarioResult['runs'] = { http: [], bare: [], pgbench: [], naive: [] };
  const name = `${scenario.group} ${scenario.path} (${scenario.label})`;
  const bareChecked = bareBase ? await checkSameBytes(scenario, service, bareBase) : undefined;

  for (let i = 0; i < settings.repeat; i++) {
    if (settings.warmup > 0) await runLoad(service.base, target, { ...load, duration: settings.warmup });
    const watch = new RssWatch(service.pid);
    const http = await runLoad(service.base, target, load);
    const rss = watch.stop();
    runs.http.push({ ...http, rssPeakMB: rss.peakMB, rssSampledMaxMB: rss.sampledMaxMB });
    let line = `  ${name}: ${fmt(http.rps)} req/s, p50 ${fmt(http.p50Ms, 2)} ms, p99 ${fmt(http.p99Ms, 2)} ms, RSS ${fmt(rss.peakMB)} MB`;
    if (http.errors || http.non2xx) line += `, ${http.errors} errors, non-2xx: ${JSON.stringify(http.otherStatuses)}`;
    if (bareBase) {
      if (settings.warmup > 0) await runLoad(bareBase, target, { ...load, headers: {}, duration: settings.warmup });
      const bare = await runLoad(bareBase, target, { ...load, headers: {} });
      runs.bare.push(bare);
      line += ` | bare ${fmt(bare.rps)} req/s, p99 ${fmt(bare.p99Ms, 2)} ms (${fmt(http.rps / bare.rps, 2)}x)`;
    }
    if (tools.pgbench) {
      const pg = await runPgbench(tools.pgbench, dbUrl, script.script, { ...pgbenchOptions, defines: script.defines });
      runs.pgbench.push(pg);
      line += ` | pgbench ${isUnfinished(pg) ? unfinishedText(pg) : `${fmt(pg.tps)} tps, p99 ${fmt(pg.p99Ms, 2)} ms`}`;
      if (naive) {
        const n = await runPgbench(tools.pgbench, dbUrl, naive.script, { ...pgbenchOptions, defines: naive.defines });
        runs.naive.push(n);
        line += ` | naive ${isUnfinished(n) ? unfinishedText(n) : `${fmt(n.tps, 2)} tps`}`;
      }
    }
    log(line + (settings.repeat > 1 ? ` [run ${i + 1}/${settings.repeat}]` : ''));
  }
  return {
    group: scenario.group,
    endpoint: `/v2${scenario.path}`,
    label: scenario.label,
    connections,
    noRiderTarget: scenario.noRiderTarget ?? false,
    http: medianOf(runs.http),
    bare: runs.bare.length ? medianOf(runs.bare) : undefined,
    bareRatio: runs.bare.length ? median(runs.bare.map((bare, i) => runs.http[i].rps / bare.rps)) : undefined,
    bareChecked,
    pgbench: pgbenchMedian(runs.pgbench),
    naive: pgbenchMedian(runs.naive),
    runs,
    pgbenchScript: script.script,
    pgbenchDefines: script.defines,
  };
}

export interface StreamRun {
  bytes: number;
  seconds: number;
  mbPerSec: number;
  rowsPerSec: number;
}

export interface StreamScenarioResult {
  endpoint: string;
  rows: number;
  /** Medians over the runs; RSS is the largest of the runs (the target is a ceiling). */
  http: StreamRun & { firstByteSeconds: number; rssPeakMB: number; rssSampledMaxMB: number };
  copy?: StreamRun;
  runs: { http: Array<StreamRun & { firstByteSeconds: number; rssPeakMB: number; rssSampledMaxMB: number }>; copy: StreamRun[] };
}

const MB = 1024 * 1024;

/** The unfiltered stream over one connection, `streamRuns` times, alternating with COPY of the same SQL. */
export async function runStreamScenario(
  path: OperationPath,
  service: RunningService,
  dbUrl: string,
  tools: Tools,
  settings: Settings,
  log: (msg: string) => void,
): Promise<StreamScenarioResult> {
  const native = await serviceSql(path, {});
  const copySql = inlineParameters(native.text, native.values);
  const timeoutMs = 30 * 60 * 1000; // a hang guard only: 1M checks take about 2 minutes on 2 cores
  const runs: StreamScenarioResult['runs'] = { http: [], copy: [] };
  let rows = NaN;
  for (let i = 0; i < settings.streamRuns; i++) {
    const watch = new RssWatch(service.pid);
    const http = await fetchStream(`${service.base}/v2${path}`, service.headers, timeoutMs);
    const rss = watch.stop();
    if (http.status !== 200) throw new Error(`GET /v2${path} answered ${http.status}`);
    let copy: CopyResult | undefined;
    if (tools.psql) {
      copy = await runCopy(tools.psql, dbUrl, copySql, timeoutMs);
      rows = copy.rows;
      runs.copy.push({
        bytes: copy.bytes,
        seconds: copy.seconds,
        mbPerSec: copy.bytes / MB / copy.seconds,
        rowsPerSec: copy.rows / copy.seconds,
      });
    }
    // Both run the same SQL, so they return the same rows; COPY counts them (one per line). Without
    // psql, rows/s stays unknown.
    runs.http.push({
      bytes: http.bytes,
      seconds: http.seconds,
      mbPerSec: http.bytes / MB / http.seconds,
      rowsPerSec: rows / http.seconds,
      firstByteSeconds: http.firstByteSeconds,
      rssPeakMB: rss.peakMB,
      rssSampledMaxMB: rss.sampledMaxMB,
    });
    const h = runs.http[runs.http.length - 1];
    let line = `  stream /v2${path}: ${fmt(h.bytes / MB)} MB in ${fmt(h.seconds, 2)} s (${fmt(h.mbPerSec)} MB/s), RSS ${fmt(h.rssPeakMB)} MB`;
    if (copy) line += ` | COPY ${fmt(copy.bytes / MB)} MB, ${copy.rows} rows in ${fmt(copy.seconds, 2)} s`;
    log(`${line} [run ${i + 1}/${settings.streamRuns}]`);
  }
  const http = medianOf(runs.http);
  http.rssPeakMB = Math.max(...runs.http.map((r) => r.rssPeakMB));
  http.rssSampledMaxMB = Math.max(...runs.http.map((r) => r.rssSampledMaxMB));
  return { endpoint: `/v2${path}`, rows, http, copy: runs.copy.length ? medianOf(runs.copy) : undefined, runs };
}
