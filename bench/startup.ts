// The embedded demo's start: no DATABASE_URL, a fresh EMBEDDED_PG_DIR in a temporary folder, timed
// from spawning the process until /v2/questioner answers 200 (initdb, migrations, demo data included).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort, projectRoot } from '../src/bench-entry';
import { children, getStatus, serverNodeFlags, serverScript, stopProcess } from './service';

export interface StartupResult {
  /** node dist/src/server.js on an empty folder. */
  firstStartSeconds: number;
  /** The same again on the folder the first start left. */
  restartSeconds: number;
  /** `npm start` (TypeScript build first) on another empty folder. */
  npmStartSeconds: number;
}

async function timeStart(command: string, args: string[], pgDir: string): Promise<number> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    EMBEDDED_PG_DIR: pgDir,
    EMBEDDED_PG_PORT: '0',
    LOG_REQUESTS: '0',
  };
  delete env.DATABASE_URL;
  const started = performance.now();
  // Its own process group, so that npm and the node it starts are stopped together.
  const child = spawn(command, args, { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let output = '';
  let token: string | undefined;
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-4000);
    token ??= /Demo API token[^:]*: (\S+)/.exec(output)?.[1];
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  try {
    // The demo prints a new API token at each start, with the address; the first answer needs it.
    const url = `http://127.0.0.1:${port}/v2/questioner`;
    const deadline = Date.now() + 120000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the service exited (${child.exitCode ?? child.signalCode})`);
      if ((await getStatus(url, 2000, token ? { authorization: `Bearer ${token}` } : {})) === 200)
        return (performance.now() - started) / 1000;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`${url} did not answer 200 within 120 s`);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${output}`);
  } finally {
    await stopGroup(child.pid!, () => stopProcess(child, 30000));
  }
}

async function stopGroup(pid: number, stopLeader: () => Promise<void>): Promise<void> {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // already gone
  }
  await stopLeader();
}

export async function runStartup(log: (msg: string) => void): Promise<StartupResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-bench-startup-'));
  fs.chmodSync(dir, 0o755); // as root, the embedded server runs as the postgres user, which must get in
  try {
    const pgDir = path.join(dir, 'pg');
    const firstStartSeconds = await timeStart(process.execPath, [...serverNodeFlags, serverScript], pgDir);
    log(`  startup: fresh embedded demo answered after ${firstStartSeconds.toFixed(2)} s`);
    const restartSeconds = await timeStart(process.execPath, [...serverNodeFlags, serverScript], pgDir);
    log(`  startup: restart on the existing cluster answered after ${restartSeconds.toFixed(2)} s`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const npmStartSeconds = await timeStart(npm, ['start', '--silent'], path.join(dir, 'pg-npm'));
    log(`  startup: npm start (build included) on a fresh folder answered after ${npmStartSeconds.toFixed(2)} s`);
    return { firstStartSeconds, restartSeconds, npmStartSeconds };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
