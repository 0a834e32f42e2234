// The real service as a separate process (dist/src/server.js), as it runs in production, so that
// its memory and CPU are its own and not the load generator's.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, projectRoot } from '../src/bench-entry';
import type { BareRoute } from './bare-server';

export const serverScript = path.join(projectRoot, 'dist', 'src', 'server.js');

/** Node's flags from `npm start` ("node <flags> dist/src/server.js"), so the bench runs the service as it starts. */
export const serverNodeFlags: string[] = (() => {
  const start = (JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
    .start;
  const words = start.trim().split(/\s+/);
  if (words[0] !== 'node' || words.at(-1) !== 'dist/src/server.js')
    throw new Error(`npm start is not "node [flags] dist/src/server.js": ${start}`);
  return words.slice(1, -1);
})();

/** Children to stop if the bench is interrupted. */
export const children = new Set<ChildProcess>();

export function getStatus(url: string, timeoutMs = 2000, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** Polls until `url` answers 200; rejects when the process exits or the time is up. */
export async function waitFor200(url: string, child: ChildProcess, timeoutMs: number, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the service exited (${child.exitCode ?? child.signalCode}) before ${url} answered`);
    if ((await getStatus(url)) === 200) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s`);
}

/** Spawns node with the server script; its output is kept (last lines) for error reports. */
export function spawnServer(env: NodeJS.ProcessEnv, nodeFlags: string[] = []): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [...serverNodeFlags, ...nodeFlags, serverScript], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 40));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => lines.join('\n') };
}

export async function stopProcess(child: ChildProcess, timeoutMs = 15000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** VmRSS and VmHWM of a process, in MB, from /proc (Linux only; undefined elsewhere). */
export function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * Peak RSS over one scenario: VmHWM after resetting it (writing 5 to clear_refs, Linux 4.0+), and
 * the largest VmRSS sampled every 100 ms, in case the reset is not allowed.
 */
export class RssWatch {
  private max = 0;
  private timer: NodeJS.Timeout;
  readonly hwmReset: boolean;
  constructor(private readonly pid: number) {
    let reset = false;
    try {
      fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
      reset = true;
    } catch {
      // not permitted: the VmHWM below is the peak since the process started
    }
    this.hwmReset = reset;
    this.sample();
    this.timer = setInterval(() => this.sample(), 100);
  }
  private sample(): void {
    const m = memoryOf(this.pid);
    if (m && m.rss > this.max) this.max = m.rss;
  }
  stop(): { peakMB: number; sampledMaxMB: number; hwmReset: boolean } {
    clearInterval(this.timer);
    this.sample();
    const hwm = memoryOf(this.pid)?.hwm ?? NaN;
    return { peakMB: Math.max(hwm, this.max), sampledMaxMB: this.max, hwmReset: this.hwmReset };
  }
}

export interface RunningService {
  base: string;
  pid: number;
  /** Sent with every API request: the bench's Bearer token. */
  headers: Record<string, string>;
  /** The settings the service ran with that differ from a plain start (the extra ones included), for the report. */
  settings: Record<string, string>;
  stop: () => Promise<void>;
}

/**
 * Starts the service on a free loopback port against `databaseUrl` and waits for /health/ready.
 * The rate limits are raised out of reach, as a load test must: per token (1,200 a minute by
 * default), and per address for failures (30 a minute), which also counts requests still in flight
 * and requests the client abandoned (autocannon abandons those in flight when a run ends). The
 * limiters still run on every request; they just never refuse one. Settings given in the
 * environment win, so e.g. `DB_POOL_MAX=16 npm run bench` measures another pool size; `extra`
 * settings (a scenario's own, e.g. STREAMS_PER_TOKEN) win over both.
 */
export async function startService(
  databaseUrl: string,
  token: string,
  extra: Record<string, string> = {},
  nodeFlags: string[] = [],
): Promise<RunningService> {
  const port = await freePort();
  const settings: Record<string, string> = {
    LOG_REQUESTS: '0',
    NODE_ENV: 'production',
    API_RATE_LIMIT_PER_MINUTE: '10000000',
    AUTH_FAILURES_PER_MINUTE: '10000000',
    // The one-week scenarios stream from 4 connections with the bench's one token.
    STREAMS_PER_TOKEN: '1000',
  };
  const overridable = [
    'DB_POOL_MAX',
    'DB_STREAM_POOL_MAX',
    'STREAMS_PER_TOKEN',
    'AUTH',
    'NODE_ENV',
    'LOG_REQUESTS',
    'API_RATE_LIMIT_PER_MINUTE',
    'AUTH_FAILURES_PER_MINUTE',
  ];
  for (const name of overridable) {
    if (process.env[name]) settings[name] = process.env[name]!;
  }
  Object.assign(settings, extra);
  const env: NodeJS.ProcessEnv = { ...process.env, ...settings, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1' };
  const { child, output } = spawnServer(env, nodeFlags);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor200(`${base}/health/ready`, child, 60000);
  } catch (error) {
    await stopProcess(child);
    throw new Error(`${(error as Error).message}\n${output()}`);
  }
  return { base, pid: child.pid!, headers: { authorization: `Bearer ${token}` }, settings, stop: () => stopProcess(child) };
}

export const bareScript = path.join(projectRoot, 'dist', 'bench', 'bare-server.js');

/** The bench's bare server (bare-server.ts) on a free loopback port, with the service's node flags (and `nodeFlags`). */
export async function startBareServer(
  databaseUrl: string,
  routes: BareRoute[],
  nodeFlags: string[] = [],
): Promise<{ base: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bare-'));
  const file = path.join(dir, 'routes.json');
  fs.writeFileSync(file, JSON.stringify(routes));
  const env = { ...process.env, NODE_ENV: 'production', DATABASE_URL: databaseUrl, PORT: String(port), BENCH_BARE_ROUTES: file };
  const child = spawn(process.execPath, [...serverNodeFlags, ...nodeFlags, bareScript], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.on('exit', () => {
    children.delete(child);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the bare server exited (${code}) before it listened`)));
  });
  return { base: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => stopProcess(child) };
}
