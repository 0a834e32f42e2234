// Whether the kept data keeps up with the systems that write the data, and what that costs them
// (docs/WRITERS.md, "Keeping up"). Writers are pgbench clients (-M prepared, commits not waiting for the
// disk, as a busy writer runs) on random riders of the whole fleet: items assigned, returned and
// exchanged, patrol checks with 15 answers, riders moved between the two largest 3PLs and renamed. Beside
// them, the service's own applier (src/db/kept-applier.ts, as many as --appliers service processes run).
//
// - full: the writers at full speed for --seconds, alternately with the applier and without it
//   (--runs each); their rates, the kept data's lag sampled every 500 ms, and the time until the log
//   they left was applied. After a run without, the applier starts on a quiet database: the catch-up
//   rate of that backlog (rows of the log applied per second).
// - steady: the writers at --rate writes a second in all, with the applier: the lag's p50, p95 and max,
//   and the log's rows written against applied.
// - kinds: each kind of write alone at full speed for --seconds, without the applier, then its backlog
//   applied: what one change of each kind costs the applier (writes it applies a second).
// After each run the rows written go and the riders are put back (through the triggers, then applied),
// and at the end each kept table is compared with its definition.
//
//   npm run -s build && node dist/bench/kept-keepup.js --url <database URL> [--only full,steady,kinds] [--seconds 30]
//     [--runs 2] [--rate 500] [--writers 6] [--appliers 1] [--record] [--no-check]
//
// It writes into the database it is given (loopback only: use a copy).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { KeptApplier, keptFreshness, projectRoot } from '../src/bench-entry';
import { median, percentile } from './stats';
import { recordInto, toolHeader, WRITERS_RUNS } from './record';
import { cleanupStatements } from './kept-writes-sql';
import { commandOf, requireLoopback } from './kept-writes';
import { differences, KEPT } from './kept-compare';
import { ID_BASE, ID_SPAN, loadFleet, pgbench, script, type Fleet, type Pgbench } from './kept-keepup-writers';

const log = (message: string) => console.error(message);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Options {
  url: string;
  only: Set<string>;
  seconds: number;
  runs: number;
  rate: number;
  writers: number;
  appliers: number;
  record: boolean;
  /** Compare each kept table with its definition at the end (minutes at 1,000,000 riders). */
  check: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      only: { type: 'string' },
      seconds: { type: 'string' },
      runs: { type: 'string' },
      rate: { type: 'string' },
      writers: { type: 'string' },
      appliers: { type: 'string' },
      record: { type: 'boolean' },
      'no-check': { type: 'boolean' },
    },
  });
  if (!values.url)
    throw new Error(
      'usage: node dist/bench/kept-keepup.js --url <database URL> [--only full,steady,kinds] [--seconds S] [--runs N] [--rate W] [--writers N] [--appliers N] [--record] [--no-check]',
    );
  const whole = (name: string, value: string | undefined, fallback: number) => {
    const n = value === undefined ? fallback : Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: a positive whole number, not ${value}`);
    return n;
  };
  return {
    url: values.url,
    only: new Set((values.only ?? 'full,steady').split(',')),
    seconds: whole('seconds', values.seconds, 30),
    runs: whole('runs', values.runs, 2),
    rate: whole('rate', values.rate, 500),
    writers: whole('writers', values.writers, 6),
    appliers: whole('appliers', values.appliers, 1),
    record: values.record ?? false,
    check: !values['no-check'],
  };
}

interface Lag {
  samples: number[];
  /** Rows of the log written during the run, and applied by the end of it. */
  written: number;
  applied: number;
}

/** The kept data's lag every 500 ms until `done`. */
async function sampleLag(db: pg.Client, done: () => boolean): Promise<number[]> {
  const samples: number[] = [];
  while (!done()) {
    try {
      samples.push((await keptFreshness(db)).behindMs);
    } catch {
      break; // the run failed, and its connection ends
    }
    await sleep(500);
  }
  return samples;
}

const logRows = async (db: pg.Client) => Number((await db.query('SELECT count(*) AS n FROM kept_changes')).rows[0].n);

/** Until the log is empty (or `limitMs`): the ms it took, or undefined. */
async function drained(db: pg.Client, limitMs: number): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if ((await logRows(db)) === 0) return Date.now() - started;
    await sleep(250);
  }
  return undefined;
}

function startAppliers(o: Options): KeptApplier[] {
  const appliers = Array.from({ length: o.appliers }, () => new KeptApplier(o.url, { intervalMs: 200, log }));
  for (const a of appliers) a.start();
  return appliers;
}

async function stopAppliers(appliers: KeptApplier[]): Promise<number> {
  await Promise.all(appliers.map((a) => a.stop()));
  return appliers.reduce((sum, a) => sum + a.status.applied, 0);
}

/** The service's applier until the log is empty: how long it took. */
async function catchUp(o: Options, db: pg.Client, what: string): Promise<number> {
  const started = Date.now();
  const appliers = startAppliers(o);
  const timer = setInterval(
    () =>
      void logRows(db).then(
        (n) => log(`${what}: ${n} rows of the log left`),
        () => undefined,
      ),
    30_000,
  );
  try {
    await drained(db, 3_600_000);
  } finally {
    clearInterval(timer);
    await stopAppliers(appliers);
  }
  return Date.now() - started;
}

/** The runs' rows deleted and the riders put back, through the triggers, and all of it applied. */
async function cleanup(o: Options, db: pg.Client, from: number, to: number): Promise<void> {
  log('cleanup: the rows written deleted, the riders put back');
  for (const s of cleanupStatements({ from, to })) await db.query(s.text, s.values);
  await db.query(`UPDATE riders r SET company_id = b.company_id, name = b.name FROM kept_keepup_riders b
                   WHERE r.id = b.id AND (r.company_id, r.name) IS DISTINCT FROM (b.company_id, b.name)`);
  await catchUp(o, db, 'cleanup');
}

interface FullRun {
  applier: boolean;
  writers: Pgbench;
  lag?: number[];
  /** With the applier: ms from the writers' end until the log was empty. Without: the backlog, and its catch-up. */
  drainMs?: number;
  backlog?: number;
  catchUpMs?: number;
}

async function fullRun(o: Options, db: pg.Client, file: string, applier: boolean, base: number): Promise<FullRun> {
  log(`full: ${o.writers} writers for ${o.seconds} s, ${applier ? `${o.appliers} applier(s) beside them` : 'no applier'}`);
  const appliers = applier ? startAppliers(o) : [];
  let done = false;
  const lag = applier ? sampleLag(db, () => done) : undefined;
  const writers = await pgbench(o, file, base);
  const run: FullRun = { applier, writers };
  if (applier) {
    run.drainMs = await drained(db, 600_000);
    done = true;
    run.lag = await lag;
    await stopAppliers(appliers);
  } else {
    run.backlog = await logRows(db);
    run.catchUpMs = await catchUp(o, db, 'catch-up');
  }
  log(`full: ${JSON.stringify({ ...run, lag: run.lag ? lagText(run.lag) : undefined })}`);
  return run;
}

async function steadyRun(o: Options, db: pg.Client, file: string, base: number): Promise<{ writers: Pgbench; lag: Lag }> {
  log(`steady: ${o.writers} writers at ${o.rate} writes a second for ${o.seconds} s, with the applier`);
  const appliers = startAppliers(o);
  let done = false;
  const samples = sampleLag(db, () => done);
  const writers = await pgbench(o, file, base, o.rate);
  done = true;
  const lag = await samples;
  const left = await logRows(db);
  const applied = await stopAppliers(appliers);
  await catchUp(o, db, 'steady');
  return { writers, lag: { samples: lag, written: applied + left, applied } };
}

const secs = (ms: number | undefined) => (ms === undefined ? 'not within the wait' : `${(ms / 1000).toFixed(1)} s`);
const lagText = (s: number[]) => {
  const sorted = [...s].sort((a, b) => a - b);
  return sorted.length ? `${secs(percentile(sorted, 50))} / ${secs(percentile(sorted, 95))} / ${secs(sorted[sorted.length - 1])}` : '-';
};

function fullTable(o: Options, runs: FullRun[]): string {
  const on = runs.filter((r) => r.applier);
  const off = runs.filter((r) => !r.applier);
  const ratio = median(on.map((r) => r.writers.tps)) / median(off.map((r) => r.writers.tps));
  const lines = [
    `| run | applier | writers' tx/s | failed | latency ms | kept data behind p50 / p95 / max | log applied after the writers |`,
    '|---:|---|---:|---:|---:|---|---|',
    ...runs.map(
      (r, i) =>
        `| ${i + 1} | ${r.applier ? `on (${o.appliers})` : 'off'} | ${r.writers.tps.toFixed(0)} | ${r.writers.failed} | ${r.writers.latencyMs.toFixed(2)} | ${r.lag ? lagText(r.lag) : '-'} | ${r.applier ? secs(r.drainMs) : `backlog ${r.backlog} rows, applied in ${secs(r.catchUpMs)} (${((r.backlog ?? 0) / ((r.catchUpMs ?? 1) / 1000)).toFixed(0)} rows/s)`} |`,
    ),
    '',
    `Writers' rate with the applier ÷ without (medians): **${ratio.toFixed(2)}×**.`,
  ];
  return lines.join('\n');
}

/** Each kind of write alone, as the writers' script chooses it (its `op`), for the kinds table. */
const KINDS: Array<{ kind: string; op: number }> = [
  { kind: 'item assigned', op: 1 },
  { kind: 'item assigned, then returned (alternately)', op: 26 },
  { kind: 'item assigned, then exchanged (alternately)', op: 41 },
  { kind: 'check with 15 answers', op: 51 },
  { kind: 'rider moved to another 3PL', op: 76 },
  { kind: 'rider renamed', op: 86 },
];

interface KindRun {
  kind: string;
  writers: Pgbench;
  backlog: number;
  catchUpMs: number;
}

/** Each kind of write alone, at full speed without the applier, then its backlog applied: what a change of each kind costs the applier. */
async function kindRuns(o: Options, db: pg.Client, f: Fleet, base: () => number): Promise<KindRun[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kept-keepup-kinds-'));
  const runs: KindRun[] = [];
  for (const { kind, op } of KINDS) {
    const file = path.join(dir, `op-${op}.sql`);
    // A return or an exchange needs an item of its own, of a rider chosen at random: its clients assign
    // one and return or exchange it, alternately.
    const chosen =
      op === 26 ? 'CASE WHEN :n % 2 = 0 THEN 1 ELSE 26 END' : op === 41 ? 'CASE WHEN :n % 2 = 0 THEN 1 ELSE 41 END' : String(op);
    fs.writeFileSync(file, script(f).replace(/^\\set op .*$/m, `\\set op ${chosen}`));
    log(`kinds: ${kind}, ${o.writers} writers for ${o.seconds} s, no applier`);
    const writers = await pgbench(o, file, base());
    const backlog = await logRows(db);
    const catchUpMs = await catchUp(o, db, kind);
    runs.push({ kind, writers, backlog, catchUpMs });
    log(`kinds: ${JSON.stringify(runs[runs.length - 1])}`);
  }
  return runs;
}

function kindsTable(runs: KindRun[]): string {
  return [
    "| write (alone) | writers' tx/s | log rows per write | backlog | applied in | rows/s | writes/s |",
    '|---|---:|---:|---:|---:|---:|---:|',
    ...runs.map((r) => {
      const perSecond = r.backlog / (r.catchUpMs / 1000);
      const perWrite = r.backlog / Math.max(r.writers.transactions, 1);
      return `| ${r.kind} | ${r.writers.tps.toFixed(0)} | ${perWrite.toFixed(2)} | ${r.backlog} | ${secs(r.catchUpMs)} | ${perSecond.toFixed(0)} | ${(perSecond / perWrite).toFixed(0)} |`;
    }),
  ].join('\n');
}

function steadyTable(o: Options, s: { writers: Pgbench; lag: Lag }): string {
  return [
    `| writes/s asked | writers' tx/s | kept data behind p50 / p95 / max | log rows written | applied during the run |`,
    '|---:|---:|---|---:|---:|',
    `| ${o.rate} | ${s.writers.tps.toFixed(0)} | ${lagText(s.lag.samples)} | ${s.lag.written} | ${s.lag.applied} |`,
  ].join('\n');
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  requireLoopback(o.url);
  const db = new pg.Client({ connectionString: o.url, application_name: 'kept-keepup' });
  await db.connect();
  try {
    const f = await loadFleet(db);
    if ((await logRows(db)) > 0) await catchUp(o, db, 'before');
    const riders = f.riders[1] - f.riders[0] + 1;
    const version = `PostgreSQL ${String((await db.query('SHOW server_version')).rows[0].server_version)}`;
    // A run stopped half-way left its rows and riders: put back first.
    if ((await db.query(`SELECT to_regclass('kept_keepup_riders') AS t`)).rows[0].t) await cleanup(o, db, ID_BASE, 2 * ID_BASE);
    else await db.query('CREATE TABLE kept_keepup_riders AS SELECT id, company_id, name FROM riders');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kept-keepup-')), 'writers.sql');
    fs.writeFileSync(file, script(f));
    const sections: Array<{ key: string; title: string; body: string }> = [];
    let run = 0;
    if (o.only.has('full')) {
      const runs: FullRun[] = [];
      for (let i = 0; i < o.runs; i++)
        for (const applier of i % 2 === 0 ? [true, false] : [false, true])
          runs.push(await fullRun(o, db, file, applier, f.idBase + ID_SPAN * run++));
      const body = fullTable(o, runs);
      console.log(`## full speed\n\n${body}\n`);
      sections.push({
        key: `writers-keepup-full${o.appliers > 1 ? `-${o.appliers}` : ''}`,
        title: `${o.writers} writers at full speed, ${o.seconds} s a run, ${o.appliers} applier(s)`,
        body,
      });
    }
    if (o.only.has('kinds')) {
      const runs = await kindRuns(o, db, f, () => f.idBase + ID_SPAN * run++);
      const body = kindsTable(runs);
      console.log(`## kinds\n\n${body}\n`);
      sections.push({
        key: 'writers-keepup-kinds',
        title: `Each kind of write alone: ${o.writers} writers for ${o.seconds} s, then its backlog applied`,
        body,
      });
    }
    if (o.only.has('steady')) {
      const s = await steadyRun(o, db, file, f.idBase + ID_SPAN * run++);
      const body = steadyTable(o, s);
      console.log(`## steady\n\n${body}\n`);
      sections.push({ key: 'writers-keepup-steady', title: `${o.writers} writers at ${o.rate} writes a second, ${o.seconds} s`, body });
    }
    await cleanup(o, db, f.idBase, f.idBase + ID_SPAN * run);
    const differing = o.check ? await differences(db) : undefined;
    const verdict = !differing
      ? 'the kept tables were not compared with their definitions (--no-check)'
      : differing.length
        ? `kept tables differing from their definitions: ${differing.join(', ')}`
        : `every kept table (${KEPT.length} with the list keys) equals its definition afterwards`;
    console.log(verdict);
    for (const s of sections) s.body += `\n\n${verdict}.`;
    await db.query('DROP TABLE kept_keepup_riders');
    if (o.record) {
      const header = toolHeader(commandOf(process.argv.slice(2), 'kept-keepup'), riders, version);
      const { written } = recordInto(path.join(projectRoot, WRITERS_RUNS), sections, riders, header);
      log(`--record: ${WRITERS_RUNS} regions written: ${written.join(', ') || 'none'}`);
    }
  } finally {
    await db.end();
  }
}

if (require.main === module)
  main().catch((error) => {
    console.error((error as Error).stack ?? error);
    process.exitCode = 1;
  });
