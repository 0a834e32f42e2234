// The concurrent phase of bench/kept-writes.ts: the writers with the triggers and without, kept_apply()
// beside them as the service runs it, the wait for the log to drain, and the cleanup after each run.
import type pg from 'pg';
import { median, percentile } from './stats';
import * as sql from './kept-writes-sql';
import type { Fleet } from './kept-writes-sql';
import {
  APPLY_BATCH,
  APPLY_PAUSE_MS,
  CLEANUP_TIMEOUT,
  DRAIN_WAIT_MS,
  STATEMENT_TIMEOUT,
  log,
  sleep,
  type Options,
} from './kept-writes-options';
import {
  connect,
  disableTriggers,
  disconnect,
  failureText,
  keptLog,
  restoreTriggers,
  sqlState,
  stop,
  triggerStates,
  type Conn,
} from './kept-writes-db';
import { countKeptChanges } from './kept-writes-timed';
import { Writer, newStats, planConcurrent, type ConcurrentPlan, type Stats } from './kept-writes-writers';

interface ApplierStats {
  calls: number;
  applied: number;
  /** Calls that returned -1: another applier held the lock. */
  busy: number;
  errors: Record<string, number>;
  /** From the writers' end until kept_changes was empty; absent if it was not within the wait. */
  drainMs?: number;
  leftAfterWait?: number;
}

/**
 * kept_apply() as the service calls it (src/db/kept-applier.ts): every 200 ms while the log is short;
 * after a full batch, again once as long as that batch took has passed (at most half a core).
 */
async function applyLoop(client: pg.Client, stats: ApplierStats, done: () => boolean): Promise<void> {
  while (!done()) {
    let n = 0;
    const started = performance.now();
    try {
      n = Number((await client.query('SELECT kept_apply($1::int) AS n', [APPLY_BATCH])).rows[0].n);
      stats.calls++;
      if (n < 0) stats.busy++;
      else stats.applied += n;
    } catch (error) {
      const code = sqlState(error);
      stats.errors[code] = (stats.errors[code] ?? 0) + 1;
    }
    await sleep(n < APPLY_BATCH ? APPLY_PAUSE_MS : performance.now() - started);
  }
}

async function waitForDrain(client: pg.Client, since: number, stats: ApplierStats): Promise<void> {
  while (Date.now() - since < DRAIN_WAIT_MS && !stop.requested) {
    const left = await countKeptChanges(client);
    stats.leftAfterWait = left;
    if (left === 0) {
      stats.drainMs = Date.now() - since;
      return;
    }
    await sleep(500);
  }
}

export interface ConcurrentRun {
  withTriggers: boolean;
  seconds: number;
  commits: number;
  txPerSecond: number;
  errors: Record<string, number>;
  ops: Record<string, { commits: number; medianMs: number; p95Ms: number; errors: Record<string, number> }>;
  applier?: ApplierStats;
  cleanup: { ms: number; rows: Record<string, number>; failures: string[]; drained?: number };
}

function summarise(stats: Stats, seconds: number, withTriggers: boolean): Omit<ConcurrentRun, 'cleanup' | 'applier'> {
  const errors: Record<string, number> = {};
  let commits = 0;
  const ops: ConcurrentRun['ops'] = {};
  for (const [op, s] of Object.entries(stats)) {
    commits += s.commits;
    for (const [code, n] of Object.entries(s.errors)) errors[code] = (errors[code] ?? 0) + n;
    const sorted = [...s.ms].sort((a, b) => a - b);
    ops[op] = { commits: s.commits, medianMs: median(sorted), p95Ms: percentile(sorted, 95), errors: s.errors };
  }
  return { withTriggers, seconds, commits, txPerSecond: commits / seconds, errors, ops };
}

/** The writers, and the applier beside them when there is one; then the wait for kept_changes to empty. */
async function writeFor(o: Options, fleet: Fleet, plan: ConcurrentPlan, run: number, admin: pg.Client, applier: boolean) {
  const range = sql.concurrentIdRange(fleet, run);
  const conns: Conn[] = [];
  let applyConn: Conn | undefined;
  try {
    for (const w of plan.writers) conns.push(await connect(o.url, `writer ${w.index}`, true));
    if (applier) {
      applyConn = await connect(o.url, 'applier', true);
      // As the service's applier (src/db/kept-applier.ts): its commits do not wait for the disk.
      await applyConn.client.query('SET synchronous_commit = off');
    }
    const stats = newStats();
    const applied: ApplierStats = { calls: 0, applied: 0, busy: 0, errors: {} };
    let draining = true;
    const applying = applyConn ? applyLoop(applyConn.client, applied, () => !draining || stop.requested) : undefined;
    const started = Date.now();
    const deadline = started + o.concurrentSeconds * 1000;
    await Promise.all(
      conns.map((c, i) =>
        new Writer(c.client, { ...plan.writers[i], firstId: range.from + 10_000_000 * i }, fleet, plan.riders, stats).run(deadline),
      ),
    );
    const ended = Date.now();
    if (applying) {
      await waitForDrain(admin, ended, applied);
      draining = false;
      await applying;
    }
    return { ...summarise(stats, (ended - started) / 1000, run === 0), applier: applying ? applied : undefined };
  } finally {
    for (const c of conns) await disconnect(c);
    if (applyConn) await disconnect(applyConn);
  }
}

/** Deletes the run's rows and puts its riders back, in the triggers' state of the run, so that the kept tables stay right. */
async function cleanup(
  admin: pg.Client,
  fleet: Fleet,
  plan: ConcurrentPlan,
  run: number,
  applier: boolean,
): Promise<ConcurrentRun['cleanup']> {
  const started = Date.now();
  const rows: Record<string, number> = {};
  const failures: string[] = [];
  await admin.query(`SET statement_timeout = '${CLEANUP_TIMEOUT}'`);
  for (const s of [...sql.restoreRiders(plan.companies, plan.names), ...sql.cleanupStatements(sql.concurrentIdRange(fleet, run))]) {
    try {
      rows[s.label] = (await admin.query(s.text, s.values)).rowCount ?? 0;
    } catch (error) {
      failures.push(`${s.label}: ${failureText(error)}`);
    }
  }
  let drained: number | undefined;
  if (applier) drained = await drainAfterCleanup(admin);
  await admin.query(`SET statement_timeout = '${STATEMENT_TIMEOUT}'`);
  return { ms: Date.now() - started, rows, failures, drained };
}

/** The cleanup's own changes applied too (bounded), so that the kept tables are current again when the tool ends. */
async function drainAfterCleanup(admin: pg.Client): Promise<number> {
  let total = 0;
  const until = Date.now() + DRAIN_WAIT_MS;
  while (Date.now() < until) {
    const n = Number((await admin.query('SELECT kept_apply($1::int) AS n', [APPLY_BATCH])).rows[0].n);
    if (n > 0) total += n;
    if (n === 0) break;
    if (n < APPLY_BATCH) await sleep(APPLY_PAUSE_MS);
  }
  return total;
}

async function runConcurrentOnce(o: Options, fleet: Fleet, plan: ConcurrentPlan, withTriggers: boolean): Promise<ConcurrentRun> {
  const run = withTriggers ? 0 : 1;
  const admin = await connect(o.url, 'admin', false);
  try {
    const { keptApply } = await keptLog(admin.client);
    const applier = withTriggers && keptApply && o.apply;
    const states = withTriggers ? undefined : await triggerStates(admin.client, sql.CONCURRENT_TABLES);
    try {
      if (states) {
        stop.triggersOff = states;
        await disableTriggers(admin.client, sql.CONCURRENT_TABLES);
      }
      log(
        `concurrent: ${o.writers} writers for ${o.concurrentSeconds} s, triggers ${withTriggers ? 'on' : 'off'}${applier ? ', kept_apply beside them' : ''}`,
      );
      let cleaned: ConcurrentRun['cleanup'] = { ms: 0, rows: {}, failures: [] };
      // Whatever happened to the writers, their rows go before the triggers come back on.
      const result = await writeFor(o, fleet, plan, run, admin.client, applier).finally(async () => {
        log('concurrent: deleting the rows inserted and putting riders back');
        cleaned = await cleanup(admin.client, fleet, plan, run, applier);
        for (const f of cleaned.failures) log(`concurrent: cleanup failed: ${f}`);
      });
      return { ...result, cleanup: cleaned };
    } finally {
      if (states) await restoreTriggers(o.url, states);
    }
  } finally {
    await disconnect(admin);
  }
}

export interface ConcurrentResult {
  companies: [string, string];
  with?: ConcurrentRun;
  without?: ConcurrentRun;
}

export async function runConcurrent(conn: Conn, fleet: Fleet, o: Options): Promise<ConcurrentResult> {
  const plan = await planConcurrent(conn.client, fleet, o.writers);
  const result: ConcurrentResult = { companies: [plan.companyA, plan.companyB] };
  result.with = await runConcurrentOnce(o, fleet, plan, true);
  if (!stop.requested) result.without = await runConcurrentOnce(o, fleet, plan, false);
  return result;
}
