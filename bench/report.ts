// The performance targets, judged on one run's figures, and the tables printed (Markdown, so docs/runs/BENCHMARKS.md
// can keep them as they are).
import type { AbortResult } from './abort';
import { isUnfinished, unfinishedText, type PgbenchOutcome, type PgbenchResult } from './pg-side';
import type { LoadScenarioResult, StreamScenarioResult } from './runner';
import type { StartupResult } from './startup';

export const TARGETS = {
  riderMinRatio: 0.25,
  /** The service's req/s over the bare server's on the same SQL (bench/bare-server.ts), measured in the same run. */
  riderMinBareRatio: 0.9,
  /** In every run, not only the median. */
  riderMaxP99Ms: 15,
  riderConnections: 16,
  streamMaxRssMB: 120,
  streamMinCopyShare: 0.9,
  pageMinRps: 500,
  deepPageMaxSlowdown: 1.2,
  pageMinNaiveFactor: 5,
  startupMaxSeconds: 15,
  /** Abandoned downloads: streaming statements still running 1 s after the last client left (the other bound is DB_STREAM_POOL_MAX). */
  abandonedMaxRunningAfter1s: 0,
};

export interface Verdict {
  target: string;
  pass: boolean;
  detail: string;
  /** The figure the target needs is missing (pgbench did not finish in its time bound): `pass` is false, the tables say UNMEASURED. */
  unmeasured?: true;
}

const f = (n: number | undefined, digits = 1) => (n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : '-');
const MB = 1024 * 1024;

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const errorsOf = (r: LoadScenarioResult) =>
  r.runs.http.reduce((n, h) => n + h.errors + h.non2xx, 0) + r.runs.pgbench.reduce((n, p) => n + (isUnfinished(p) ? 0 : p.failed), 0);

/** A pgbench outcome's figures, or undefined when it did not finish (or did not run). */
const finished = (p: PgbenchOutcome | undefined): PgbenchResult | undefined => (p && !isUnfinished(p) ? p : undefined);
/** "did not finish in N s" for a pgbench run that did not, else undefined. */
const unfinished = (p: PgbenchOutcome | undefined): string | undefined => (p && isUnfinished(p) ? unfinishedText(p) : undefined);

export function riderVerdict(r: LoadScenarioResult): Verdict | undefined {
  if (r.group !== 'rider' || r.noRiderTarget) return undefined;
  const pgbench = finished(r.pgbench);
  const ratio = pgbench ? r.http.rps / pgbench.tps : NaN;
  const worstP99 = Math.max(...r.runs.http.map((h) => h.p99Ms));
  const rest = worstP99 <= TARGETS.riderMaxP99Ms && errorsOf(r) === 0;
  const bareOk = r.bareRatio !== undefined && r.bareRatio >= TARGETS.riderMinBareRatio;
  const at16 = r.connections === TARGETS.riderConnections ? '' : ` (measured at ${r.connections} connections, target is at 16)`;
  const notFinished = unfinished(r.pgbench);
  const ratioText = notFinished ? `pgbench ${notFinished}, no ratio` : `${f(ratio * 100, 0)}% of pgbench`;
  const bareText = r.bareRatio === undefined ? 'no bare server' : `${f(r.bareRatio, 2)}x the bare server`;
  const runs = r.runs.http.length > 1 ? ` (worst of ${r.runs.http.length} runs)` : '';
  return {
    target: `${r.endpoint} by rider: >= 0.9x the bare server, >= 25% of pgbench, p99 <= 15 ms in every run`,
    pass: bareOk && ratio >= TARGETS.riderMinRatio && rest && at16 === '',
    detail: `${bareText}, ${ratioText}, p99 ${f(worstP99, 2)} ms${runs}${errorsOf(r) ? `, ${errorsOf(r)} errors` : ''}${at16}`,
    // Unmeasured only if the figures there are do not already fail it.
    ...(notFinished && bareOk && rest && at16 === '' ? { unmeasured: true as const } : {}),
  };
}

/**
 * The page targets, per page scenario: >= 500 req/s for each; >= 5x the naive query where one was
 * measured (the unfiltered pages); and for the last unfiltered page (the second scenario), within
 * 1.2x of page 1 (the first).
 */
function pageRowVerdicts(pages: LoadScenarioResult[], i: number): Verdict[] {
  const page = pages[i];
  const verdicts: Verdict[] = [
    {
      target: `rider-equipment-list ${page.label}: >= ${TARGETS.pageMinRps} req/s`,
      pass: page.http.rps >= TARGETS.pageMinRps && errorsOf(page) === 0,
      detail: `${f(page.http.rps)} req/s${errorsOf(page) ? `, ${errorsOf(page)} errors` : ''}`,
    },
  ];
  if (i === 1) {
    const share = page.http.rps / pages[0].http.rps;
    verdicts.push({
      target: `rider-equipment-list: last page within ${TARGETS.deepPageMaxSlowdown}x of page 1`,
      pass: share >= 1 / TARGETS.deepPageMaxSlowdown && errorsOf(page) === 0,
      detail: `last page ${f(page.http.rps)} req/s = ${f(share, 2)}x page 1's ${f(pages[0].http.rps)} (needs >= ${f(1 / TARGETS.deepPageMaxSlowdown, 2)}x)`,
    });
  }
  if (page.naive) {
    const naive = finished(page.naive);
    const factor = naive ? page.http.rps / naive.tps : NaN;
    const notFinished = unfinished(page.naive);
    verdicts.push({
      target: `rider-equipment-list ${page.label.split(',')[0]}: >= 5x the naive OFFSET + count query`,
      pass: factor >= TARGETS.pageMinNaiveFactor,
      detail: notFinished
        ? `${f(page.http.rps)} req/s vs naive: ${notFinished} (no ratio)`
        : `${f(page.http.rps)} req/s vs naive ${f(naive?.tps, 2)} tps (${f(factor, 1)}x)`,
      ...(notFinished ? { unmeasured: true as const } : {}),
    });
  }
  return verdicts;
}

export function pageVerdicts(pages: LoadScenarioResult[]): Verdict[] {
  return pages.flatMap((_page, i) => pageRowVerdicts(pages, i));
}

export function streamVerdicts(s: StreamScenarioResult): Verdict[] {
  if (s.endpoint !== '/v2/patrollerchecks') return [];
  const share = s.copy ? s.http.rowsPerSec / s.copy.rowsPerSec : NaN;
  return [
    {
      target: `full /v2/patrollerchecks: server RSS <= ${TARGETS.streamMaxRssMB} MB`,
      pass: s.http.rssPeakMB <= TARGETS.streamMaxRssMB,
      detail: `peak ${f(s.http.rssPeakMB)} MB`,
    },
    {
      target: `full /v2/patrollerchecks: >= ${TARGETS.streamMinCopyShare * 100}% of COPY throughput (rows/s)`,
      pass: share >= TARGETS.streamMinCopyShare,
      detail: `${f(s.http.rowsPerSec, 0)} vs COPY ${f(s.copy?.rowsPerSec, 0)} rows/s (${f(share * 100, 0)}%)`,
    },
  ];
}

/**
 * Abandoned downloads, per case: PostgreSQL never runs more streaming statements than the stream
 * pool holds, and none is left running 1 s after the last client hung up.
 */
export function abortVerdicts(r: AbortResult, streamPoolMax: number): Verdict[] {
  return [
    {
      target: `abandoned downloads: most streaming statements at once <= DB_STREAM_POOL_MAX [${r.label}]`,
      pass: r.maxRunning <= streamPoolMax,
      detail: `${r.maxRunning} at most, DB_STREAM_POOL_MAX ${streamPoolMax}`,
    },
    {
      target: `abandoned downloads: none still running 1 s after the last client left [${r.label}]`,
      pass: r.runningAfter1s <= TARGETS.abandonedMaxRunningAfter1s,
      detail: `${r.runningAfter1s} running after 1 s, ${r.runningAfter5s} after 5 s`,
    },
  ];
}

export function startupVerdict(s: StartupResult): Verdict {
  return {
    target: 'embedded demo: < 15 s from npm start to the first answer',
    pass: s.npmStartSeconds < TARGETS.startupMaxSeconds,
    detail: `npm start ${f(s.npmStartSeconds, 2)} s (fresh server.js ${f(s.firstStartSeconds, 2)} s, restart ${f(s.restartSeconds, 2)} s)`,
  };
}

const resultOf = (v: Verdict) => (v.pass ? 'PASS' : v.unmeasured ? 'UNMEASURED' : 'FAIL');
const mark = (v: Verdict | undefined) => (v ? resultOf(v) : '-');
/** One mark for several verdicts: FAIL if any fails, else UNMEASURED if any is, else PASS. */
const markAll = (vs: Verdict[]) =>
  vs.some((v) => !v.pass && !v.unmeasured) ? 'FAIL' : vs.some((v) => v.unmeasured) ? 'UNMEASURED' : 'PASS';

export function loadTable(results: LoadScenarioResult[]): string {
  return table(
    [
      'endpoint',
      'request',
      'req/s',
      'p50 ms',
      'p99 ms',
      'MB/s',
      'errors',
      'peak RSS MB',
      'bare req/s',
      'bare p99 ms',
      'vs bare',
      'pgbench tps',
      'pgbench p99 ms',
      'vs pgbench',
      'target',
    ],
    results.map((r) => {
      const pgbench = finished(r.pgbench);
      const ratio = pgbench ? r.http.rps / pgbench.tps : NaN;
      return [
        r.endpoint,
        r.label,
        f(r.http.rps),
        f(r.http.p50Ms, 2),
        f(r.http.p99Ms, 2),
        f(r.http.bytesPerSec / MB, 2),
        String(errorsOf(r)),
        f(r.http.rssPeakMB),
        f(r.bare?.rps),
        f(r.bare?.p99Ms, 2),
        r.bareRatio === undefined ? '-' : `${f(r.bareRatio, 2)}x`,
        unfinished(r.pgbench) ?? f(pgbench?.tps),
        f(pgbench?.p99Ms, 2),
        Number.isFinite(ratio) ? `${f(ratio * 100, 0)}%` : '-',
        mark(riderVerdict(r)),
      ];
    }),
  );
}

export function pageTable(pages: LoadScenarioResult[]): string {
  return table(
    [
      'page',
      'req/s',
      'p50 ms',
      'p99 ms',
      'errors',
      'peak RSS MB',
      'bare req/s',
      'vs bare',
      'pgbench tps',
      'ratio',
      'naive tps',
      'req/s vs naive',
      'req/s vs page 1',
      'target',
    ],
    pages.map((r, i) => {
      const own = pageRowVerdicts(pages, i);
      const pgbench = finished(r.pgbench);
      const naive = finished(r.naive);
      return [
        r.label,
        f(r.http.rps),
        f(r.http.p50Ms, 2),
        f(r.http.p99Ms, 2),
        String(errorsOf(r)),
        f(r.http.rssPeakMB),
        f(r.bare?.rps),
        r.bareRatio === undefined ? '-' : `${f(r.bareRatio, 2)}x`,
        unfinished(r.pgbench) ?? f(pgbench?.tps),
        pgbench ? `${f((r.http.rps / pgbench.tps) * 100, 0)}%` : '-',
        unfinished(r.naive) ?? f(naive?.tps, 2),
        naive ? `${f(r.http.rps / naive.tps, 1)}x` : '-',
        `${f(r.http.rps / pages[0].http.rps, 2)}x`,
        own.length ? markAll(own) : '-',
      ];
    }),
  );
}

export function streamTable(streams: StreamScenarioResult[]): string {
  return table(
    [
      'endpoint',
      'rows',
      'MB',
      's',
      'MB/s',
      'rows/s',
      'first byte s',
      'peak RSS MB',
      'COPY MB',
      'COPY s',
      'COPY MB/s',
      'COPY rows/s',
      'rows/s vs COPY',
      'target',
    ],
    streams.map((s) => {
      const v = streamVerdicts(s);
      return [
        s.endpoint,
        String(s.rows),
        f(s.http.bytes / MB),
        f(s.http.seconds, 2),
        f(s.http.mbPerSec),
        f(s.http.rowsPerSec, 0),
        f(s.http.firstByteSeconds, 2),
        f(s.http.rssPeakMB),
        f(s.copy ? s.copy.bytes / MB : undefined),
        f(s.copy?.seconds, 2),
        f(s.copy?.mbPerSec),
        f(s.copy?.rowsPerSec, 0),
        s.copy ? `${f((s.http.rowsPerSec / s.copy.rowsPerSec) * 100, 0)}%` : '-',
        v.length ? (v.every((x) => x.pass) ? 'PASS' : 'FAIL') : '-',
      ];
    }),
  );
}

export function startupTable(s: StartupResult): string {
  return table(
    ['start', 'seconds to first 200 of /v2/questioner', 'target'],
    [
      ['npm start, fresh folder (build, new cluster, migrations, demo data)', f(s.npmStartSeconds, 2), mark(startupVerdict(s))],
      ['node dist/src/server.js, fresh folder', f(s.firstStartSeconds, 2), '-'],
      ['node dist/src/server.js, restart on that folder', f(s.restartSeconds, 2), '-'],
    ],
  );
}

export function verdictTable(verdicts: Verdict[]): string {
  return table(
    ['target', 'result', 'measured'],
    verdicts.map((v) => [v.target, resultOf(v), v.detail]),
  );
}
