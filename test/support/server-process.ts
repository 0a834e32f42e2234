// The built server as a real process (dist/src/server.js), as `npm start` runs it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { appUrl, useDatabase } from './databases';

const root = path.join(__dirname, '../..');

/** Compiles the service once for the file's tests. */
export function buildOnce(): void {
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root });
}

/** Starts the server on a free port (the demo test database unless env says otherwise) and resolves at its banner. */
export async function startServer(
  env: Record<string, string>,
  options: { detached?: boolean } = {},
): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  // As the production role would (test/support/databases.ts), unless env names a database of its own.
  const demo = 'DATABASE_URL' in env ? '' : appUrl(await useDatabase('demo'));
  const child = spawn(process.execPath, ['dist/src/server.js'], {
    cwd: root,
    detached: options.detached,
    env: {
      ...process.env,
      DATABASE_URL: demo,
      PORT: '0',
      AUTH: 'off',
      LOG_REQUESTS: 'off',
      ...env,
    },
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60000);
    // A start that fails (a bad setting) says so at once, not after the minute.
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${signal ?? `status ${code}`}) before it listened:\n${out}`));
    });
    child.stdout!.on('data', () => {
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, base: match[1], output: () => out });
      }
    });
  });
}

export const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

/** Runs `work` with a started server, which is gone afterwards whatever happened (SIGKILL if still running). */
export async function withServer<T>(
  env: Record<string, string>,
  work: (server: Awaited<ReturnType<typeof startServer>>) => Promise<T>,
): Promise<T> {
  const server = await startServer(env);
  try {
    return await work(server);
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      const gone = exited(server.child);
      server.child.kill('SIGKILL');
      await gone;
    }
  }
}

/** A GET on a connection of its own (so that a server's workers take requests in turn); resolves with the body. */
export function getText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (d: string) => (body += d))
          .on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}
