// The report of bench/kept-writes.ts: the tables of the single, bulk and concurrent phases, their verdicts
// against the targets, the results as --json writes them, and the summary at the end.
import { median } from './stats';
import type { Fleet } from './kept-writes-sql';
import { DRAIN_WAIT_MS, MIX, TARGET_ADDED_MS, TARGET_BULK_RATIO, type Options, type Phase } from './kept-writes-options';
import type { DatabaseInfo } from './kept-writes-db';
import { isForeignKey, type Cell, type Sample } from './kept-writes-timed';
import type { ConcurrentResult, ConcurrentRun } from './kept-writes-concurrent';
import type { ApplierCost, Freshness } from './kept-writes-freshness';

// Report ------------------------------------------------------------------------------------------------

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

function ms(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '-';
  return Math.abs(n) < 10 ? n.toFixed(2) : Math.abs(n) < 1000 ? n.toFixed(1) : n.toFixed(0);
}

interface Figures {
  medianMs?: number;
  /** "2/5 timeout": the samples that failed, by failure. */
  failed: string[];
}

function figures(samples: Sample[]): Figures {
  const done = samples.filter((s) => s.ms !== undefined).map((s) => s.ms!);
  const failures = new Map<string, number>();
  for (const s of samples) if (s.failure) failures.set(s.failure, (failures.get(s.failure) ?? 0) + 1);
  return {
    medianMs: done.length ? median(done) : undefined,
    failed: [...failures].map(([f, n]) => `${n}/${samples.length} ${f}`),
  };
}

const shown = (f: Figures) => [ms(f.medianMs), ...f.failed.map((x) => `(${x.length > 60 ? `${x.slice(0, 60)}…` : x})`)].join(' ');

/** Our triggers by their median time over the samples with triggers (0 in a sample that did not fire them), slowest first. */
function topTriggers(samples: Sample[], n = 3): Array<{ name: string; ms: number }> {
  const done = samples.filter((s) => s.ms !== undefined);
  const names = new Set(done.flatMap((s) => Object.keys(s.triggers)).filter((t) => !isForeignKey(t)));
  return [...names]
    .map((name) => ({ name, ms: median(done.map((s) => s.triggers[name] ?? 0)) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, n);
}

export interface CellSummary {
  kind: string;
  position: string;
  withMs?: number;
  withoutMs?: number;
  addedMs?: number;
  verdict: 'PASS' | 'FAIL' | 'ERROR';
  failures: { with: string[]; without: string[] };
  statements: Array<{ label: string; withMs?: number; withoutMs?: number }>;
  topTriggers: Array<{ name: string; ms: number }>;
  keptChanges?: { with?: number; without?: number };
}

function statementMedian(samples: Sample[], i: number): number | undefined {
  const values = samples.filter((s) => s.ms !== undefined).map((s) => s.statements[i].ms);
  return values.length ? median(values) : undefined;
}

function keptChangeMedian(samples: Sample[]): number | undefined {
  const values = samples.filter((s) => s.keptChanges !== undefined).map((s) => s.keptChanges!);
  return values.length ? median(values) : undefined;
}

/** A write with triggers that timed out is over any target; a figure missing without triggers is an error of the tool's. */
function summariseCell(cell: Cell, pass: (w: number, wo: number) => boolean): CellSummary {
  const w = figures(cell.with);
  const wo = figures(cell.without);
  const timedOut = cell.with.some((s) => s.failure === 'timeout');
  const measured = w.medianMs !== undefined && wo.medianMs !== undefined;
  const verdict = timedOut ? 'FAIL' : !measured ? 'ERROR' : pass(w.medianMs!, wo.medianMs!) ? 'PASS' : 'FAIL';
  const kept = { with: keptChangeMedian(cell.with), without: keptChangeMedian(cell.without) };
  return {
    kind: cell.kind,
    position: cell.position,
    withMs: w.medianMs,
    withoutMs: wo.medianMs,
    addedMs: measured ? w.medianMs! - wo.medianMs! : undefined,
    verdict,
    failures: { with: w.failed, without: wo.failed },
    statements: cell.statements.map((label, i) => ({
      label,
      withMs: statementMedian(cell.with, i),
      withoutMs: statementMedian(cell.without, i),
    })),
    topTriggers: topTriggers(cell.with),
    keptChanges: kept.with === undefined && kept.without === undefined ? undefined : kept,
  };
}

const triggersText = (t: CellSummary['topTriggers']) => t.map((x) => `${x.name} ${ms(x.ms)}`).join(', ') || '-';
const keptText = (k: CellSummary['keptChanges']) => (k ? `${k.with ?? '-'}/${k.without ?? '-'}` : '-');

export function singleReport(cells: Cell[], keptChanges: boolean): { text: string; summaries: CellSummary[] } {
  const summaries = cells.map((c) => summariseCell(c, (w, wo) => w - wo <= TARGET_ADDED_MS));
  const rows: string[][] = [];
  for (const [i, s] of summaries.entries()) {
    const f = { with: figures(cells[i].with), without: figures(cells[i].without) };
    const verdict = s.verdict === 'FAIL' && s.addedMs === undefined ? 'FAIL (timeout)' : s.verdict;
    rows.push([
      s.kind,
      s.position,
      shown(f.with),
      shown(f.without),
      ms(s.addedMs),
      verdict,
      ...(keptChanges ? [keptText(s.keptChanges)] : []),
      triggersText(s.topTriggers),
    ]);
    if (s.statements.length > 1)
      for (const st of s.statements) {
        const added = st.withMs !== undefined && st.withoutMs !== undefined ? st.withMs - st.withoutMs : undefined;
        rows.push([`  · ${st.label}`, '', ms(st.withMs), ms(st.withoutMs), ms(added), '', ...(keptChanges ? [''] : []), '']);
      }
  }
  const header = [
    'kind',
    'position',
    'with ms',
    'without ms',
    'added ms',
    `≤ ${TARGET_ADDED_MS} ms`,
    ...(keptChanges ? ['kept_changes rows'] : []),
    'top triggers (ms, with)',
  ];
  return { text: table(header, rows), summaries };
}

export function bulkReport(cells: Cell[]): { text: string; summaries: Array<CellSummary & { ratio?: number }> } {
  const summaries = cells.map((c) => {
    const s = summariseCell(c, (w, wo) => w / wo <= TARGET_BULK_RATIO);
    return { ...s, ratio: s.withMs !== undefined && s.withoutMs !== undefined ? s.withMs / s.withoutMs : undefined };
  });
  const rows = summaries.map((s, i) => [
    s.kind,
    s.position,
    shown(figures(cells[i].with)),
    shown(figures(cells[i].without)),
    s.ratio === undefined ? '-' : `${s.ratio.toFixed(2)}×`,
    s.verdict,
    triggersText(s.topTriggers),
  ]);
  return {
    text: table(['kind', 'rows', 'with ms', 'without ms', 'ratio', `≤ ${TARGET_BULK_RATIO}×`, 'top triggers (ms, with)'], rows),
    summaries,
  };
}

const errorsText = (errors: Record<string, number>) =>
  Object.entries(errors)
    .sort((a, b) => b[1] - a[1])
    .map(([code, n]) => `${code}×${n}`)
    .join(', ') || '-';

const otherErrors = (errors: Record<string, number>) =>
  Object.fromEntries(Object.entries(errors).filter(([code]) => !['40P01', '40001', '55P03'].includes(code)));

export function concurrentReport(r: ConcurrentResult): string {
  const runs = [r.with, r.without].filter((x): x is ConcurrentRun => x !== undefined);
  const lines = [
    table(
      ['triggers', 'seconds', 'committed', 'tx/s', '40P01 deadlock', '40001', '55P03', 'other errors'],
      runs.map((run) => [
        run.withTriggers ? 'on' : 'off',
        run.seconds.toFixed(1),
        String(run.commits),
        run.txPerSecond.toFixed(1),
        String(run.errors['40P01'] ?? 0),
        String(run.errors['40001'] ?? 0),
        String(run.errors['55P03'] ?? 0),
        errorsText(otherErrors(run.errors)),
      ]),
    ),
    '',
    table(
      ['op', ...runs.flatMap((run) => [`${run.withTriggers ? 'on' : 'off'}: committed`, 'median ms', 'p95 ms', 'errors'])],
      MIX.map(([op]) => [
        op,
        ...runs.flatMap((run) => {
          const s = run.ops[op];
          return [String(s.commits), ms(s.medianMs), ms(s.p95Ms), errorsText(s.errors)];
        }),
      ]),
    ),
  ];
  lines.push('', 'seconds: until the last statement begun before the end had finished; tx/s: committed ÷ seconds.');
  if (r.with && r.without)
    lines.push(
      '',
      `tx/s without ÷ with: ${(r.without.txPerSecond / r.with.txPerSecond).toFixed(1)}× (moves between companies ${r.companies.join(' ↔ ')})`,
    );
  const a = r.with?.applier;
  if (a)
    lines.push(
      `kept_apply beside the writers: ${a.calls} calls, ${a.applied} rows applied, ${a.busy} busy (-1), errors ${errorsText(a.errors)}; ` +
        (a.drainMs !== undefined
          ? `kept_changes empty ${(a.drainMs / 1000).toFixed(1)} s after the writers stopped`
          : `kept_changes not empty ${DRAIN_WAIT_MS / 1000} s after the writers stopped (${a.leftAfterWait} rows left)`),
    );
  for (const run of runs)
    lines.push(
      `cleanup (triggers ${run.withTriggers ? 'on' : 'off'}): ${(run.cleanup.ms / 1000).toFixed(1)} s, ` +
        Object.entries(run.cleanup.rows)
          .map(([label, n]) => `${label} ${n}`)
          .join(', ') +
        (run.cleanup.drained !== undefined ? `, kept_apply afterwards ${run.cleanup.drained} rows` : '') +
        (run.cleanup.failures.length ? `; FAILED: ${run.cleanup.failures.join('; ')}` : ''),
    );
  return lines.join('\n');
}

export interface Results {
  startedAt: string;
  finishedAt?: string;
  url: string;
  options: Omit<Options, 'only' | 'url'> & { only: Phase[] };
  database: DatabaseInfo;
  fleet: { positions: Fleet['positions']; idBase: number; topProduct: string; topVariation: string };
  single?: { summaries: CellSummary[]; cells: Cell[] };
  bulk?: { summaries: CellSummary[]; cells: Cell[] };
  concurrent?: ConcurrentResult;
  freshness?: Freshness;
  applier?: ApplierCost;
  stopped?: boolean;
  error?: string;
}

export function overall(r: Results): string {
  const lines = [
    `Dataset: ${r.database.database}, ${r.database.riders} riders (about ${r.database.estimatedRows.assignments ?? '?'} assignments, ${r.database.estimatedRows.patrol_checks ?? '?'} patrol checks, ${r.database.estimatedRows.patrol_check_answers ?? '?'} answers)`,
    `PostgreSQL: ${r.database.version}`,
    `User triggers: ${r.database.userTriggers}; kept_changes ${r.database.keptChanges ? 'present' : 'absent'}; kept_apply(integer) ${r.database.keptApply ? 'present' : 'absent'}`,
  ];
  if (r.single) {
    const failed = r.single.summaries.filter((s) => s.verdict !== 'PASS');
    lines.push(
      `single: ${r.single.summaries.length - failed.length}/${r.single.summaries.length} writes within ${TARGET_ADDED_MS} ms added` +
        (failed.length ? `; over it: ${failed.map((s) => `${s.kind} ${s.position} +${ms(s.addedMs)} ms`).join(', ')}` : ''),
    );
  }
  if (r.bulk)
    lines.push(
      `bulk: ${r.bulk.summaries.map((s) => `${s.kind} ${s.withMs !== undefined && s.withoutMs !== undefined ? (s.withMs / s.withoutMs).toFixed(2) : '-'}× ${s.verdict}`).join(', ')}`,
    );
  const c = r.concurrent;
  if (c?.with && c.without)
    lines.push(
      `concurrent: ${c.with.txPerSecond.toFixed(1)} tx/s with triggers, ${c.without.txPerSecond.toFixed(1)} without (${(c.without.txPerSecond / c.with.txPerSecond).toFixed(1)}× slower with); ` +
        `deadlocks ${c.with.errors['40P01'] ?? 0} with, ${c.without.errors['40P01'] ?? 0} without; other errors with: ${errorsText(otherErrors(c.with.errors))}`,
    );
  if (r.freshness)
    lines.push(
      `freshness: a committed write in the kept data after ${r.freshness.medianMs.toFixed(0)} ms (median), ${r.freshness.maxMs.toFixed(0)} ms at most`,
    );
  if (r.stopped) lines.push('Stopped early (Ctrl-C): the figures above are partial.');
  if (r.error) lines.push(`Ended on an error: ${r.error}`);
  return lines.join('\n');
}
