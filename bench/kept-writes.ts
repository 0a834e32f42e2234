// What our triggers (those that keep the kept tables: every user trigger, not the foreign keys' RI_
// ones) cost the systems that write the data. Each figure is taken with the triggers on and with them
// switched off by ALTER TABLE … DISABLE TRIGGER USER, which leaves the foreign keys' triggers on:
//
// - single: each write kind (assign, return, exchange, check, move, rename-rider) for the first, middle
//   and last rider by id, and for the last one with 500 more assignments and checks ("end+500"), plus
//   rename-product and rename-variation once; EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) in a transaction
//   that is rolled back, the triggers off in that transaction only. Target: at most 5 ms added.
// - bulk: --bulk patrol checks, and as many assignments, in one INSERT each, rolled back. Target: at most
//   1.5 times the time without.
// - concurrent: --writers connections writing autocommit statements on random riders for
//   --concurrent-seconds, once with the triggers and once without (switched off for the run, then back
//   on, Ctrl-C included); committed transactions per second and failures by SQLSTATE. With a function
//   kept_apply(integer) in the database, it runs beside the writers and is timed draining kept_changes.
//   Each run's rows are deleted and its riders put back afterwards.
// - freshness: how long a committed write takes to show in the kept data, with the service's applier.
// - applier: the applier's own time (kept_apply_all) for --bulk new checks over the fleet and a tenth as
//   many returns, and the rows of the log it applies a second, --bulk-repeat / 3 times, rolled back.
//
// It writes into the database and switches triggers off for a while: run it on a copy on this machine
// (loopback only), not on a database anything else writes. The report goes to stdout, progress to stderr.
//
//   npm run -s build && node dist/bench/kept-writes.js --url <database URL> [--repeat N (5)] [--bulk N (10000)] [--bulk-repeat N (9)]
//     [--concurrent-seconds S (30)] [--writers W (6)] [--only single,bulk,concurrent,freshness,applier] [--json FILE] [--no-apply]
//
// This file runs the phases asked for and prints and records their reports; their code is in bench/kept-writes-*.ts.
import fs from 'node:fs';
import path from 'node:path';
import { recordInto, toolHeader, WRITERS_RUNS } from './record';
import { projectRoot } from '../src/bench-entry';
import * as sql from './kept-writes-sql';
import { APPLY_PAUSE_MS, log, out, parseOptions, redacted, requireLoopback, type Phase } from './kept-writes-options';
import { connect, databaseInfo, disconnect, startStop, stop } from './kept-writes-db';
import { runBulk, runSingle } from './kept-writes-timed';
import { runConcurrent } from './kept-writes-concurrent';
import { applierTable, freshnessTable, runApplierCost, runFreshness } from './kept-writes-freshness';
import { bulkReport, concurrentReport, overall, singleReport, type CellSummary, type Results } from './kept-writes-report';

// What bench/kept-keepup.ts, bench/kept-appliers.ts and the tests import from here.
export { requireLoopback } from './kept-writes-options';
export { applierTable, freshnessTable, type ApplierCost, type Freshness } from './kept-writes-freshness';

// Main ----------------------------------------------------------------------------------------------------

async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  log(`${name}: starting`);
  const result = await work();
  log(`${name}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return result;
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  requireLoopback(o.url);
  startStop(o.url);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop.onSignal());
  const { url: _url, only, ...options } = o;
  const conn = await connect(o.url, 'single', true);
  let results: Results | undefined;
  try {
    const fleet = await sql.loadFleet(conn.client);
    results = {
      startedAt: new Date().toISOString(),
      url: redacted(o.url),
      options: { ...options, only: [...only] },
      database: await databaseInfo(conn.client, fleet),
      fleet: { positions: fleet.positions, idBase: fleet.idBase, topProduct: fleet.topProduct, topVariation: fleet.topVariation },
    };
    out(`kept-writes on ${results.database.database}: ${fleet.riders} riders, ${results.database.version.split(' on ')[0]}`);
    out(`riders: ${fleet.positions.map((p) => `${p.position} ${p.rider.id}`).join(', ')}; new ids from ${fleet.idBase}\n`);
    if (o.only.has('single') && !stop.requested) {
      const cells = await phase('single', () => runSingle(conn, fleet, o));
      const report = singleReport(
        cells,
        results.database.keptChanges || cells.some((c) => c.with.some((s) => s.keptChanges !== undefined)),
      );
      results.single = { summaries: report.summaries, cells };
      out(`## single writes (median of ${o.repeat}, EXPLAIN ANALYZE execution time incl. triggers, rolled back)\n\n${report.text}\n`);
      if (o.record)
        recordPhase(
          'single',
          `Added ms per write (with the triggers − without), median of ${o.repeat}`,
          singleTable(report.summaries),
          fleet.riders,
          results.database.version,
        );
    }
    if (o.only.has('bulk') && !stop.requested) {
      const cells = await phase('bulk', () => runBulk(conn, fleet, o));
      const report = bulkReport(cells);
      results.bulk = { summaries: report.summaries, cells };
      out(`## bulk (one INSERT of ${o.bulk} rows, median of ${o.bulkRepeat}, rolled back)\n\n${report.text}\n`);
      if (o.record)
        recordPhase(
          'bulk',
          `One INSERT of ${o.bulk} rows, median of ${o.bulkRepeat}, rolled back`,
          report.text,
          fleet.riders,
          results.database.version,
        );
    }
    if (o.only.has('concurrent') && !stop.requested) {
      results.concurrent = await phase('concurrent', () => runConcurrent(conn, fleet, o));
      out(
        `## concurrent (${o.writers} writers, ${o.concurrentSeconds} s each run, autocommit)\n\n${concurrentReport(results.concurrent)}\n`,
      );
      if (o.record)
        recordPhase(
          'concurrent',
          `${o.writers} writers, ${o.concurrentSeconds} s each run, autocommit`,
          concurrentSummary(concurrentReport(results.concurrent)),
          fleet.riders,
          results.database.version,
          o.apply,
        );
    }
    if (o.only.has('freshness') && !stop.requested) {
      const f = await phase('freshness', () => runFreshness(o, fleet));
      results.freshness = f;
      out(
        `## freshness (an item given to the last rider, committed; the service's applier, every 200 ms)\n\n` +
          `until the kept data shows it: median ${f.medianMs.toFixed(0)} ms, p90 ${f.p90Ms.toFixed(0)} ms, max ${f.maxMs.toFixed(0)} ms (${f.trials} writes)\n`,
      );
      if (o.record)
        recordPhase(
          'freshness',
          `A committed write until the kept data shows it (an item given to the last rider; the service's applier, every ${APPLY_PAUSE_MS} ms)`,
          freshnessTable(f),
          fleet.riders,
          results.database.version,
        );
    }
    if (o.only.has('applier') && !stop.requested) {
      const a = await phase('applier', () => runApplierCost(conn, fleet, o));
      results.applier = a;
      out(
        `## applier (its own time for ${o.bulk} new checks and ${Math.round(o.bulk / 10)} returns: ${a.rows} rows of the log; median of ${a.ms.length}, rolled back)\n\n` +
          `${applierTable(a)}\n`,
      );
      if (o.record)
        recordPhase(
          'applier',
          `The applier's own time (kept_apply_all) for ${o.bulk} new checks on as many riders and ${Math.round(o.bulk / 10)} returns; median of ${a.ms.length}, rolled back`,
          applierTable(a),
          fleet.riders,
          results.database.version,
        );
    }
  } catch (error) {
    if (results) results.error = (error as Error).message;
    throw error;
  } finally {
    await disconnect(conn);
    if (results) {
      results.finishedAt = new Date().toISOString();
      results.stopped = stop.requested || undefined;
      if (stop.requested) process.exitCode = 130;
      out(`## summary\n\n${overall(results)}`);
      if (o.json) {
        fs.writeFileSync(o.json, JSON.stringify(results, null, 2));
        log(`results written to ${o.json}`);
      }
    }
  }
}

/** `--record`: the single writes' added ms (with the triggers − without) per kind and rider position, one compact table. */
function singleTable(summaries: CellSummary[]): string {
  const positions = [...new Set(summaries.map((s) => s.position))];
  const kinds = [...new Set(summaries.map((s) => s.kind))];
  const cell = (kind: string, position: string) => {
    const s = summaries.find((x) => x.kind === kind && x.position === position);
    return s?.addedMs === undefined ? '' : `${s.addedMs >= 0 ? '+' : ''}${s.addedMs.toFixed(2)}`;
  };
  return [
    `| write | ${positions.join(' | ')} |`,
    `|---|${positions.map(() => '---:').join('|')}|`,
    ...kinds.map((kind) => `| ${kind} | ${positions.map((p) => cell(kind, p)).join(' | ')} |`),
  ].join('\n');
}

/** The concurrent report as --record writes it: the rates and errors with and without, their ratio, the applier's line. */
function concurrentSummary(report: string): string {
  const [rates] = report.split('\n\n');
  const lines = report.split('\n').filter((line) => line.startsWith('tx/s without') || line.startsWith('kept_apply beside'));
  return [rates, '', ...lines].join('\n');
}

/** The region of docs/runs/WRITERS-BENCHMARKS.md a phase's table goes to: `writers-<phase>`, `writers-concurrent-no-apply` for the writers without the applier. */
export const regionOf = (phase: Phase, apply: boolean) => `writers-${phase}${apply || phase !== 'concurrent' ? '' : '-no-apply'}`;

/** The command as the recorded header names it: the database's URL and the JSON file's path left out. */
export function commandOf(argv: readonly string[], tool = 'kept-writes'): string {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [name] = argv[i].split('=');
    if (name === '--url' || name === '--json') {
      out.push(`${name} …`);
      if (!argv[i].includes('=')) i++;
    } else out.push(argv[i]);
  }
  return [`node dist/bench/${tool}.js`, ...out].join(' ');
}

/**
 * `--record`: one phase's table into its region `writers-<phase>@<riders>` of docs/runs/WRITERS-BENCHMARKS.md
 * (bench/record.ts), under a line naming the run. The concurrent writers without the applier
 * (--no-apply) have a region of their own, `writers-concurrent-no-apply`.
 */
function recordPhase(phase: Phase, title: string, body: string, riders: number, version: string, apply = true): void {
  const key = regionOf(phase, apply);
  const header = toolHeader(commandOf(process.argv.slice(2)), riders, version);
  const file = path.join(projectRoot, WRITERS_RUNS);
  const { written, missing } = recordInto(file, [{ key, title, body }], riders, header);
  log(`--record: ${WRITERS_RUNS} ${written.length ? `region written: ${written.join(', ')}` : `has no region ${missing.join(', ')}`}`);
}

if (require.main === module)
  main().catch((error) => {
    console.error((error as Error).message);
    process.exitCode = 1;
  });
