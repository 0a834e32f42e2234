// PostgreSQL alone, for the same SQL: pgbench for the request scenarios, psql COPY for the streams.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { children } from './service';
import { percentile } from './stats';

export interface PgTool {
  path: string;
  version: string;
}

/** A client tool from PATH, else from Debian's /usr/lib/postgresql/<version>/bin (newest first). */
export function findPgTool(name: string): PgTool | undefined {
  const candidates = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, name));
  const debian = '/usr/lib/postgresql';
  if (fs.existsSync(debian)) {
    const versions = fs.readdirSync(debian).sort((a, b) => Number(b) - Number(a) || b.localeCompare(a));
    candidates.push(...versions.map((v) => path.join(debian, v, 'bin', name)));
  }
  for (const candidate of candidates) {
    if (!fs.existsSync(candidate)) continue;
    // Debian's PATH entries are wrappers that can fail without a cluster; only a tool that runs counts.
    const run = spawnSync(candidate, ['--version'], { encoding: 'utf8', timeout: 10000 });
    if (run.status === 0) return { path: candidate, version: run.stdout.trim() };
  }
  return undefined;
}

/** libpq environment for a postgres:// URL, with the service's session time zone. */
export function libpqEnv(url: string): NodeJS.ProcessEnv {
  const u = new URL(url);
  return {
    ...process.env,
    PGHOST: u.hostname,
    PGPORT: u.port || '5432',
    PGUSER: decodeURIComponent(u.username || 'postgres'),
    PGPASSWORD: decodeURIComponent(u.password),
    PGDATABASE: decodeURIComponent(u.pathname.slice(1)),
    PGOPTIONS: `-c TimeZone=${process.env.TIME_ZONE || 'UTC'}`,
    PGAPPNAME: 'rider-equipment-bench',
  };
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Still running after `timeoutMs`, so killed here (code null, signal SIGKILL). */
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, signal, timedOut, stdout, stderr });
    });
  });
}

/**
 * Ends the server backends of a client that was killed: PostgreSQL notices a vanished client only
 * when it next writes to it, so a long statement (the naive last page) would go on loading the
 * machine during the scenarios that follow. Best effort: a failure is only logged.
 */
async function terminateBackends(url: string, applicationName: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: 'rider-equipment-bench-cleanup' });
  try {
    await client.connect();
    const others = `FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`;
    await client.query(`SELECT pg_terminate_backend(pid) ${others}`, [applicationName]);
    for (let i = 0; i < 50; i++) {
      const { rows } = await client.query(`SELECT count(*)::int AS n ${others}`, [applicationName]);
      if ((rows[0] as { n: number }).n === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    console.error(`warning: backends of ${applicationName} still present 5 s after pg_terminate_backend`);
  } catch (error) {
    console.error(`warning: could not end the backends of ${applicationName}: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface PgbenchResult {
  tps: number;
  transactions: number;
  failed: number;
  latencyAvgMs: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * pgbench was still running at its time bound (-T plus the grace for transactions in flight; a
 * statement took that long, e.g. the naive last page on a loaded machine) and was stopped there.
 * A figure, not an error: there are no rates, only the bound.
 */
export interface PgbenchUnfinished {
  didNotFinishSeconds: number;
}

export type PgbenchOutcome = PgbenchResult | PgbenchUnfinished;

export function isUnfinished(r: PgbenchOutcome): r is PgbenchUnfinished {
  return 'didNotFinishSeconds' in r;
}

/** What the report prints in place of an unfinished run's figures. */
export const unfinishedText = (r: PgbenchUnfinished) => `did not finish in ${r.didNotFinishSeconds} s`;

let pgbenchRuns = 0;

/**
 * Runs one pgbench script: `pgbench -n -c C -j 2 -T D -M prepared` (or another -M), with a per-transaction log
 * (-l) read back for p50 and p99, which pgbench itself does not print. A transaction in flight at
 * the end of -T is waited for, up to `graceSeconds` more; pgbench still running then is stopped,
 * its statements ended on the server, and the outcome is "did not finish in D + grace s".
 * Anything else that stops pgbench early (a non-zero exit, an error message) is thrown.
 */
export async function runPgbench(
  pgbench: PgTool,
  url: string,
  script: string,
  options: { connections: number; duration: number; graceSeconds: number; mode: string; defines: Record<string, string> },
): Promise<PgbenchOutcome> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-bench-pgbench-'));
  // Its own application name, so that its backends can be found if it has to be stopped.
  const applicationName = `rider-equipment-bench-pgbench-${process.pid}-${++pgbenchRuns}`;
  try {
    fs.writeFileSync(path.join(dir, 'script.sql'), script);
    const args = [
      '-n',
      '-c',
      String(options.connections),
      '-j',
      String(Math.min(2, options.connections)),
      '-T',
      String(options.duration),
      '-M',
      options.mode,
      '-f',
      'script.sql',
      '-l',
      '--log-prefix',
      'txlog',
      ...Object.entries(options.defines).flatMap(([name, value]) => ['-D', `${name}=${value}`]),
    ];
    const boundSeconds = options.duration + options.graceSeconds;
    const result = await run(pgbench.path, args, { ...libpqEnv(url), PGAPPNAME: applicationName }, dir, boundSeconds * 1000);
    if (result.timedOut && result.code === null) {
      await terminateBackends(url, applicationName);
      return { didNotFinishSeconds: boundSeconds };
    }
    const out = result.stdout;
    const number = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
    const tps = number(/tps = ([\d.]+) \((?:without|excluding)/);
    if (result.code !== 0 || !Number.isFinite(tps)) {
      const exit = result.signal ? `signal ${result.signal}` : `exit ${result.code}`;
      throw new Error(`pgbench failed (${exit}):\n${result.stderr.slice(-2000)}\n${out.slice(-1000)}`);
    }
    const latencies: number[] = [];
    for (const file of fs.readdirSync(dir).filter((f) => f.startsWith('txlog'))) {
      for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
        const us = Number(line.split(' ')[2]); // client_id transaction_no time(us) script_no epoch us
        if (Number.isFinite(us) && line) latencies.push(us / 1000);
      }
    }
    latencies.sort((a, b) => a - b);
    return {
      tps,
      transactions: number(/number of transactions actually processed: (\d+)/),
      failed: number(/number of failed transactions: (\d+)/) || 0,
      latencyAvgMs: number(/latency average = ([\d.]+) ms/),
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface CopyResult {
  bytes: number;
  rows: number;
  seconds: number;
}

/**
 * `psql -c "COPY (<sql>) TO STDOUT"` with its output drained and counted here (the equivalent of
 * `> /dev/null` plus a byte and line count; each row is one line, as COPY escapes newlines).
 */
export function runCopy(psql: PgTool, url: string, sql: string, timeoutMs: number): Promise<CopyResult> {
  return runCopyStatement(psql, url, `COPY (${sql}) TO STDOUT`, timeoutMs);
}

/** A whole `COPY … TO STDOUT` statement through psql, its output counted (bytes, lines) and dropped. */
export async function runCopyStatement(psql: PgTool, url: string, statement: string, timeoutMs: number): Promise<CopyResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(psql.path, ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-c', statement], {
      env: libpqEnv(url),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let bytes = 0;
    let rows = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) rows++;
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) reject(new Error(`psql COPY failed (exit ${code}): ${stderr.slice(-2000)}`));
      else resolve({ bytes, rows, seconds });
    });
  });
}
