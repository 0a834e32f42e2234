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
// After each run the rows written go and the riders are put back (through the triggers, then applied),
// and at the end each kept table is compared with its definition.
//
//   npm run -s build && node dist/bench/kept-keepup.js --url <database URL> [--only full,steady] [--seconds 30]
//     [--runs 2] [--rate 500] [--writers 6] [--appliers 1] [--record] [--no-check]
//
// It writes into the database it is given (loopback only: use a copy).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { KeptApplier, keptFreshness } from '../src/db/kept-applier';
import { projectRoot } from '../src/paths';
import { median, percentile } from './stats';
import { recordInto, toolHeader } from './record';
import { cleanupStatements } from './kept-writes-sql';
import { commandOf, requireLoopback } from './kept-writes';

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
      'usage: node dist/bench/kept-keepup.js --url <database URL> [--only full,steady] [--seconds S] [--runs N] [--rate W] [--writers N] [--appliers N] [--record] [--no-check]',
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

/** Ids of the rows the writers insert: far above the data's, a range per run (the cleanup deletes them all). */
const ID_BASE = 100_000_000_000;
const ID_SPAN = 100_000_000;

interface Fleet {
  riders: [number, number];
  companies: [string, string];
  user: string;
  patroller: string;
  variation: { id: string; productId: string };
  idBase: number;
}

export async function loadFleet(db: pg.Client): Promise<Fleet> {
  const one = async (text: string) => (await db.query(text)).rows[0] as Record<string, string>;
  const r = await one('SELECT min(id) AS lo, max(id) AS hi FROM riders');
  const c = (await db.query('SELECT company_id::text AS id FROM riders GROUP BY 1 ORDER BY count(*) DESC LIMIT 2')).rows;
  const v = await one('SELECT id::text, product_id::text FROM product_variations ORDER BY id LIMIT 1');
  return {
    riders: [Number(r.lo), Number(r.hi)],
    companies: [c[0].id as string, c[1].id as string],
    user: (await one('SELECT min(id)::text AS id FROM app_users')).id,
    patroller: (await one('SELECT min(id)::text AS id FROM patrollers')).id,
    variation: { id: v.id, productId: v.product_id },
    idBase: ID_BASE,
  };
}

/** One writer's transaction, chosen at random: the mix of bench/kept-writes.ts with exchanges added. */
export function script(f: Fleet): string {
  const [ca, cb] = f.companies;
  return `\\set r random(${f.riders[0]}, ${f.riders[1]})
\\set op random(1, 100)
\\set n :n + 1
\\set id :base + :client_id * 1000000 + :n
\\if :op <= 25
INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
  VALUES (:id, :r, ${f.variation.productId}, ${f.variation.id}, now(), ${f.user}, 0, 'assign');
\\set last :id
\\elif :op <= 40
WITH a AS (UPDATE assignments SET deleted_at = now() WHERE id = :last AND deleted_at IS NULL RETURNING id)
  INSERT INTO product_returns (id, assignment_id, returned_at, returned_by, condition) SELECT :id, a.id, now(), ${f.user}, 'Good' FROM a;
\\elif :op <= 50
WITH o AS (UPDATE assignments SET deleted_at = now() WHERE id = :last AND deleted_at IS NULL RETURNING id, rider_id),
     n AS (INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
             SELECT :id, rider_id, ${f.variation.productId}, ${f.variation.id}, now(), ${f.user}, 0, 'exchange' FROM o RETURNING id)
  INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by)
  SELECT :id, o.id, n.id, now(), 'Damaged', 'Exchange', ${f.user} FROM o, n;
\\set last :id
\\elif :op <= 75
WITH c AS (INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
             VALUES (:id, :r, ${f.patroller}, now(), true, random() > 0.2, true) RETURNING id)
  INSERT INTO patrol_check_answers (check_id, position, question_id, answer, image_url, score)
  SELECT c.id, q, q, '"Yes"', NULL, 1 FROM c, generate_series(1, 15) q;
\\elif :op <= 85
UPDATE riders SET company_id = CASE company_id WHEN ${ca} THEN ${cb} ELSE ${ca} END WHERE id = :r AND company_id IN (${ca}, ${cb});
\\else
UPDATE riders SET name = name || ' x' WHERE id = :r;
\\endif
`;
}

interface Pgbench {
  tps: number;
  transactions: number;
  failed: number;
  latencyMs: number;
}

/** pgbench with the writers' script for `seconds`, at full speed or at `rate` transactions a second in all. */
function pgbench(o: Options, file: string, base: number, rate?: number): Promise<Pgbench> {
  const args = ['-n', '-M', 'prepared', '-c', String(o.writers), '-j', String(Math.min(o.writers, 2)), '-T', String(o.seconds)];
  args.push('-D', `base=${base}`, '-D', 'n=0', '-D', 'last=0', '-f', file);
  if (rate) args.push('-R', String(rate));
  args.push(o.url);
  return new Promise((resolve, reject) => {
    const child = spawn('pgbench', args, { env: { ...process.env, PGOPTIONS: '-c synchronous_commit=off' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
      if (code !== 0) return reject(new Error(`pgbench exited ${code}:\n${out.slice(-2000)}`));
      resolve({
        tps: num(/tps = ([\d.]+) \(without initial/),
        transactions: num(/number of transactions actually processed: (\d+)/),
        failed: num(/number of failed transactions: (\d+)/) || 0,
        latencyMs: num(/latency average = ([\d.]+) ms/),
      });
    });
  });
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

/** Each kept table against its definition: the rows that differ, per table. */
async function differences(db: pg.Client): Promise<Record<string, number>> {
  const pairs: Array<[string, string]> = [
    ['kept_check_quarters', 'kept_check_quarter_docs'],
    ['kept_exchange_quarters', 'kept_exchange_quarter_docs'],
    ['kept_exchange_days', 'kept_exchange_day_docs'],
    ['kept_check_gaps', 'kept_check_gap_docs'],
    ['kept_assignment_days', 'kept_assignment_day_docs'],
    ['kept_held_items', 'kept_held_item_docs'],
    ['kept_company_riders', 'kept_company_rider_docs'],
    ['kept_rider_name_grams', 'kept_rider_name_gram_docs'],
    ['kept_rule_riders', 'kept_rule_rider_docs'],
    ['kept_rule_days', 'kept_rule_day_docs'],
    ['rider_list_entries', 'rider_list_entry_docs'],
  ];
  const out: Record<string, number> = {};
  for (const [table, docs] of pairs) {
    const { rows } = await db.query(
      `SELECT count(*) AS n FROM ((TABLE ${table} EXCEPT ALL TABLE ${docs}) UNION ALL (TABLE ${docs} EXCEPT ALL TABLE ${table})) d`,
    );
    out[table] = Number(rows[0].n);
  }
  return out;
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
    if (o.only.has('steady')) {
      const s = await steadyRun(o, db, file, f.idBase + ID_SPAN * run++);
      const body = steadyTable(o, s);
      console.log(`## steady\n\n${body}\n`);
      sections.push({ key: 'writers-keepup-steady', title: `${o.writers} writers at ${o.rate} writes a second, ${o.seconds} s`, body });
    }
    await cleanup(o, db, f.idBase, f.idBase + ID_SPAN * run);
    const diff = o.check ? await differences(db) : undefined;
    const wrong = Object.entries(diff ?? {}).filter(([, n]) => n > 0);
    const verdict = !diff
      ? 'the kept tables were not compared with their definitions (--no-check)'
      : wrong.length
        ? `kept tables differing from their definitions: ${wrong.map(([t, n]) => `${t} ${n} rows`).join(', ')}`
        : 'every kept table equals its definition afterwards';
    console.log(verdict);
    for (const s of sections) s.body += `\n\n${verdict}.`;
    await db.query('DROP TABLE kept_keepup_riders');
    if (o.record) {
      const header = toolHeader(commandOf(process.argv.slice(2), 'kept-keepup'), riders, version);
      const { written } = recordInto(path.join(projectRoot, 'docs', 'WRITERS.md'), sections, riders, header);
      log(`--record: docs/WRITERS.md regions written: ${written.join(', ') || 'none'}`);
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
