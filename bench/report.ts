// The performance targets, judged on one run's figures, and the tables printed (Markdown, so the README
// can keep them as they are).
import type { LoadScenarioResult, StreamScenarioResult } from './runner';
import type { StartupResult } from './startup';

export const TARGETS = {
  riderMinRatio: 0.25,
  riderMaxP99Ms: 15,
  riderConnections: 16,
  streamMaxRssMB: 150,
  streamMinCopyShare: 0.8,
  deepPageMaxSlowdown: 2,
  pageMinNaiveFactor: 5,
  startupMaxSeconds: 15,
};

export interface Verdict {
  target: string;
  pass: boolean;
  detail: string;
}

const f = (n: number | undefined, digits = 1) => (n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : '-');
const MB = 1024 * 1024;

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const errorsOf = (r: LoadScenarioResult) =>
  r.runs.http.reduce((n, h) => n + h.errors + h.non2xx, 0) + r.runs.pgbench.reduce((n, p) => n + p.failed, 0);

export function riderVerdict(r: LoadScenarioResult): Verdict | undefined {
  if (r.group !== 'rider' || r.noRiderTarget) return undefined;
  const ratio = r.pgbench ? r.http.rps / r.pgbench.tps : NaN;
  const ok = ratio >= TARGETS.riderMinRatio && r.http.p99Ms < TARGETS.riderMaxP99Ms && errorsOf(r) === 0;
  const at16 = r.connections === TARGETS.riderConnections ? '' : ` (measured at ${r.connections} connections, target is at 16)`;
  return {
    target: `${r.endpoint} by rider: >= 25% of pgbench and p99 < 15 ms`,
    pass: ok && at16 === '',
    detail: `ratio ${f(ratio * 100, 0)}%, p99 ${f(r.http.p99Ms, 2)} ms${errorsOf(r) ? `, ${errorsOf(r)} errors` : ''}${at16}`,
  };
}

export function pageVerdicts(pages: LoadScenarioResult[]): Verdict[] {
  if (pages.length < 2) return [];
  const [first, last] = pages;
  const share = last.http.rps / first.http.rps;
  const verdicts: Verdict[] = [
    {
      target: 'rider-equipment-list: last page within 2x of page 1',
      pass: share >= 1 / TARGETS.deepPageMaxSlowdown && errorsOf(last) === 0,
      detail: `last page ${f(last.http.rps)} req/s = ${f(share, 2)}x page 1's ${f(first.http.rps)} (needs >= 0.5x)`,
    },
  ];
  for (const page of pages) {
    const factor = page.naive ? page.http.rps / page.naive.tps : NaN;
    verdicts.push({
      target: `rider-equipment-list ${page.label.split(',')[0]}: >= 5x the naive OFFSET + count query`,
      pass: factor >= TARGETS.pageMinNaiveFactor,
      detail: `${f(page.http.rps)} req/s vs naive ${f(page.naive?.tps, 2)} tps (${f(factor, 1)}x)`,
    });
  }
  return verdicts;
}

export function streamVerdicts(s: StreamScenarioResult): Verdict[] {
  if (s.endpoint !== '/v2/patrollerchecks') return [];
  const share = s.copy ? s.http.rowsPerSec / s.copy.rowsPerSec : NaN;
  return [
    { target: 'full /v2/patrollerchecks: server RSS < 150 MB', pass: s.http.rssPeakMB < TARGETS.streamMaxRssMB, detail: `peak ${f(s.http.rssPeakMB)} MB` },
    {
      target: 'full /v2/patrollerchecks: >= 80% of COPY throughput (rows/s)',
      pass: share >= TARGETS.streamMinCopyShare,
      detail: `${f(s.http.rowsPerSec, 0)} vs COPY ${f(s.copy?.rowsPerSec, 0)} rows/s (${f(share * 100, 0)}%)`,
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

const mark = (v: Verdict | undefined) => (v ? (v.pass ? 'PASS' : 'FAIL') : '-');

export function loadTable(results: LoadScenarioResult[]): string {
  return table(
    ['endpoint', 'request', 'req/s', 'p50 ms', 'p99 ms', 'MB/s', 'errors', 'peak RSS MB', 'pgbench tps', 'pgbench p99 ms', 'ratio', 'target'],
    results.map((r) => {
      const ratio = r.pgbench ? r.http.rps / r.pgbench.tps : NaN;
      return [
        r.endpoint, r.label, f(r.http.rps), f(r.http.p50Ms, 2), f(r.http.p99Ms, 2), f(r.http.bytesPerSec / MB, 2), String(errorsOf(r)), f(r.http.rssPeakMB),
        f(r.pgbench?.tps), f(r.pgbench?.p99Ms, 2), Number.isFinite(ratio) ? `${f(ratio * 100, 0)}%` : '-', mark(riderVerdict(r)),
      ];
    }),
  );
}

export function pageTable(pages: LoadScenarioResult[]): string {
  const verdicts = pageVerdicts(pages);
  return table(
    ['page', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'peak RSS MB', 'pgbench tps', 'ratio', 'naive tps', 'req/s vs naive', 'req/s vs page 1', 'target'],
    pages.map((r, i) => {
      const pass = verdicts.length ? (i === 0 ? verdicts[1].pass : verdicts[0].pass && verdicts[2].pass) : undefined;
      return [
        r.label, f(r.http.rps), f(r.http.p50Ms, 2), f(r.http.p99Ms, 2), String(errorsOf(r)), f(r.http.rssPeakMB), f(r.pgbench?.tps),
        r.pgbench ? `${f((r.http.rps / r.pgbench.tps) * 100, 0)}%` : '-', f(r.naive?.tps, 2),
        r.naive ? `${f(r.http.rps / r.naive.tps, 1)}x` : '-', `${f(r.http.rps / pages[0].http.rps, 2)}x`,
        pass === undefined ? '-' : pass ? 'PASS' : 'FAIL',
      ];
    }),
  );
}

export function streamTable(streams: StreamScenarioResult[]): string {
  return table(
    ['endpoint', 'rows', 'MB', 's', 'MB/s', 'rows/s', 'first byte s', 'peak RSS MB', 'COPY MB', 'COPY s', 'COPY MB/s', 'COPY rows/s', 'rows/s vs COPY', 'target'],
    streams.map((s) => {
      const v = streamVerdicts(s);
      return [
        s.endpoint, String(s.rows), f(s.http.bytes / MB), f(s.http.seconds, 2), f(s.http.mbPerSec), f(s.http.rowsPerSec, 0),
        f(s.http.firstByteSeconds, 2), f(s.http.rssPeakMB), f(s.copy ? s.copy.bytes / MB : undefined), f(s.copy?.seconds, 2),
        f(s.copy?.mbPerSec), f(s.copy?.rowsPerSec, 0), s.copy ? `${f((s.http.rowsPerSec / s.copy.rowsPerSec) * 100, 0)}%` : '-',
        v.length ? (v.every((x) => x.pass) ? 'PASS' : 'FAIL') : '-',
      ];
    }),
  );
}

export function startupTable(s: StartupResult): string {
  return table(['start', 'seconds to first 200 of /v2/questioner', 'target'], [
    ['npm start, fresh folder (build, new cluster, migrations, demo data)', f(s.npmStartSeconds, 2), mark(startupVerdict(s))],
    ['node dist/src/server.js, fresh folder', f(s.firstStartSeconds, 2), '-'],
    ['node dist/src/server.js, restart on that folder', f(s.restartSeconds, 2), '-'],
  ]);
}

export function verdictTable(verdicts: Verdict[]): string {
  return table(['target', 'result', 'measured'], verdicts.map((v) => [v.target, v.pass ? 'PASS' : 'FAIL', v.detail]));
}
