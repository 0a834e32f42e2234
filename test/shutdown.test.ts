import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { databaseUrl, testDatabases } from './support/databases';

// The built server as a real process: SIGTERM lets requests in flight finish, then it exits.
jest.setTimeout(90000);
const root = path.join(__dirname, '..');

beforeAll(() => {
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root });
});

function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  const child = spawn(process.execPath, ['dist/src/server.js'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl(process.env.TEST_ADMIN_URL!, testDatabases().demo),
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
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 20000);
    child.stdout!.on('data', () => {
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, base: match[1], output: () => out });
      }
    });
  });
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

/** Starts a large download and holds it paused after its first chunk. */
function heldDownload(url: string) {
  return new Promise<{ res: http.IncomingMessage; chunks: Buffer[] }>((resolve, reject) => {
    http.get(url, (res) => {
      const chunks: Buffer[] = [];
      res.once('data', (chunk: Buffer) => {
        chunks.push(chunk);
        res.pause();
        resolve({ res, chunks });
      });
    }).on('error', reject);
  });
}

describe('SIGTERM', () => {
  it('stops accepting, finishes the request in flight completely, then exits 0', async () => {
    const { child, base } = await startServer({});
    const { res, chunks } = await heldDownload(`${base}/v2/patrollerchecks`);
    const exit = exited(child);
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // New connections are refused while the old answer is still going.
    await expect(new Promise((resolve, reject) => http.get(`${base}/health/live`, resolve).on('error', reject))).rejects.toThrow(/ECONNREFUSED/);
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise((resolve) => res.on('end', resolve).resume());
    const checks = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    expect(checks.length).toBeGreaterThan(1000);
    expect(await exit).toBe(0);
  });

  it('exits anyway, with status 1, when a request outlasts SHUTDOWN_TIMEOUT_MS', async () => {
    const { child, base, output } = await startServer({ SHUTDOWN_TIMEOUT_MS: '500' });
    const { res } = await heldDownload(`${base}/v2/patrollerchecks`);
    const started = Date.now();
    const exit = exited(child);
    child.kill('SIGTERM');
    expect(await exit).toBe(1);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(output()).toMatch(/did not finish within 500 ms/);
    res.destroy();
  });
});
