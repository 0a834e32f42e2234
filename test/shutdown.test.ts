import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { alive, startEmbedded } from '../src/db/embedded';
import { buildOnce, exited, startServer } from './support/server-process';
import { eventually } from './support/wait';

// The built server as a real process: SIGTERM lets requests in flight finish, then it exits.
jest.setTimeout(90000);
beforeAll(buildOnce);

/** Starts a large download and holds it paused after its first chunk. */
function heldDownload(url: string) {
  return new Promise<{ res: http.IncomingMessage; chunks: Buffer[] }>((resolve, reject) => {
    http
      .get(url, (res) => {
        const chunks: Buffer[] = [];
        res.once('data', (chunk: Buffer) => {
          chunks.push(chunk);
          res.pause();
          resolve({ res, chunks });
        });
      })
      .on('error', reject);
  });
}

describe('SIGTERM', () => {
  it('stops accepting, finishes the request in flight completely, then exits 0', async () => {
    const { child, base } = await startServer({});
    const { res, chunks } = await heldDownload(`${base}/v2/patrollerchecks`);
    const exit = exited(child);
    child.kill('SIGTERM');
    // New connections are refused while the old answer is still going.
    const refused = () =>
      new Promise<boolean>((resolve) => {
        const req = http.get(`${base}/health/live`, (res) => {
          res.resume();
          resolve(false);
        });
        req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
      });
    await eventually(refused, { ms: 5000, what: 'new connections refused after SIGTERM' });
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

describe('the embedded default when the service does not stop it itself', () => {
  let dir: string;
  const dataDir = () => path.join(dir, 'pg');
  const postmasterPid = () => Number(fs.readFileSync(path.join(dataDir(), 'postmaster.pid'), 'utf8').split('\n')[0]);
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-equipment-left-'));
    fs.chmodSync(dir, 0o755);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('stops its PostgreSQL too when a request outlasts SHUTDOWN_TIMEOUT_MS', async () => {
    const { child, base, output } = await startServer({ DATABASE_URL: '', EMBEDDED_PG_DIR: dataDir(), SHUTDOWN_TIMEOUT_MS: '500' });
    const pid = postmasterPid();
    const { res } = await heldDownload(`${base}/v2/patrollerchecks`);
    res.on('error', () => undefined);
    const exit = exited(child);
    child.kill('SIGTERM');
    expect(await exit).toBe(1);
    expect(output()).toMatch(/did not finish within 500 ms/);
    expect(alive(pid)).toBe(false);
    res.destroy();
  });

  it('takes over a PostgreSQL left running by a killed start, and stops it with itself', async () => {
    const first = await startServer({ DATABASE_URL: '', EMBEDDED_PG_DIR: dataDir() });
    const pid = postmasterPid();
    const killed = exited(first.child);
    first.child.kill('SIGKILL');
    await killed;
    expect(alive(pid)).toBe(true); // nobody stopped it

    const second = await startServer({ DATABASE_URL: '', EMBEDDED_PG_DIR: dataDir() });
    expect(second.output()).toMatch(new RegExp(`left running by an earlier start \\(pid ${pid}\\)`));
    expect((await new Promise<http.IncomingMessage>((resolve) => http.get(`${second.base}/v2/questioner`, resolve))).statusCode).toBe(200);
    const exit = exited(second.child);
    second.child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(alive(pid)).toBe(false);
  });
});

describe('Ctrl-C under the embedded default', () => {
  it('stops the service and its embedded PostgreSQL promptly, with status 0, though both got the signal', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-equipment-ctrl-c-'));
    fs.chmodSync(dir, 0o755);
    try {
      // Its own process group, as a terminal's foreground job: Ctrl-C signals every process in it.
      const { child, base } = await startServer({ DATABASE_URL: '', EMBEDDED_PG_DIR: path.join(dir, 'pg') }, { detached: true });
      const postmasterPid = Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      // A download in flight keeps the service up until after PostgreSQL has gone.
      const { res } = await heldDownload(`${base}/v2/patrollerchecks`);
      res.on('error', () => undefined);
      const started = Date.now();
      const exit = exited(child);
      process.kill(-child.pid!, 'SIGINT');
      await eventually(() => !alive(postmasterPid), { ms: 5000, what: 'PostgreSQL stopped by the Ctrl-C' });
      res.resume();
      expect(await exit).toBe(0);
      expect(Date.now() - started).toBeLessThan(8000);
      expect(alive(postmasterPid)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the embedded server', () => {
  it('stop() returns at once when the server has already gone (as after a Ctrl-C to the whole group)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-equipment-stopped-'));
    fs.chmodSync(dir, 0o755);
    try {
      const server = await startEmbedded(path.join(dir, 'pg'));
      const pid = Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGINT');
      await eventually(() => !alive(pid) && !fs.existsSync(path.join(dir, 'pg', 'postmaster.pid')), { ms: 10000, what: 'the server gone' });
      let timer: NodeJS.Timeout | undefined;
      const stopped = await Promise.race([
        server.stop().then(() => 'stopped'),
        new Promise((resolve) => (timer = setTimeout(() => resolve('still waiting'), 3000))),
      ]);
      clearTimeout(timer);
      expect(stopped).toBe('stopped');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
