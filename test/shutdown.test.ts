import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { alive, startEmbedded } from '../src/db/embedded';
import { buildOnce, exited, startServer } from './support/server-process';
import { eventually } from './support/wait';

// The built server as a real process: SIGTERM fails readiness, drains, lets requests in flight finish
// (or cuts them, saying so), then it exits 0.
jest.setTimeout(90000);
beforeAll(buildOnce);

/** Starts a large download and holds it paused after its first chunk. */
function heldDownload(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ res: http.IncomingMessage; chunks: Buffer[] }>((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
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

/** A GET on a new connection: its status, or the connection's error code (ECONNREFUSED once the listener has closed). */
function statusOf(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('SIGTERM', () => {
  it('fails readiness at once, accepts new connections for SHUTDOWN_DRAIN_MS, then cuts the export still running, logs it and exits 0', async () => {
    const { child, base, output } = await startServer({ SHUTDOWN_DRAIN_MS: '3000', SHUTDOWN_TIMEOUT_MS: '300' });
    expect(await statusOf(`${base}/health/ready`)).toBe(200);
    const { res } = await heldDownload(`${base}/v2/patrollerchecks`, { 'X-Request-Id': 'held-export-1' });
    res.on('error', () => undefined);
    const exit = exited(child);
    const signalled = Date.now();
    child.kill('SIGTERM');
    // The balancer's check fails first, while the service still answers everything else on new connections.
    await eventually(async () => (await statusOf(`${base}/health/ready`)) === 503, { ms: 1000, what: 'readiness 503 after SIGTERM' });
    expect(await statusOf(`${base}/health/live`)).toBe(200);
    expect(await statusOf(`${base}/v2/questioner?country_id=1`)).toBe(200);
    // Then the listener closes: new connections are refused, not before the drain is over.
    await eventually(async () => (await statusOf(`${base}/health/live`)) === 'ECONNREFUSED', { ms: 8000, what: 'connections refused' });
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(3000);
    // The export still held after SHUTDOWN_TIMEOUT_MS is cut, and said so; the stop is orderly all the same.
    expect(await exit).toBe(0);
    expect(output()).toMatch(/Cut at shutdown: GET \/v2\/patrollerchecks \(request held-export-1\) was still running after \d+ ms/);
    // One line for the cut request: not a second one calling it a client that left.
    expect(output()).not.toMatch(/\[held-export-1\] GET \/v2\/patrollerchecks -> 499/);
    expect(output()).toMatch(/Stopped\./);
    res.destroy();
  });

  it('lets a request in flight finish completely within SHUTDOWN_TIMEOUT_MS, cutting nothing, and exits 0', async () => {
    const { child, base, output } = await startServer({ SHUTDOWN_DRAIN_MS: '200' });
    const { res, chunks } = await heldDownload(`${base}/v2/patrollerchecks`);
    const exit = exited(child);
    child.kill('SIGTERM');
    await eventually(async () => (await statusOf(`${base}/health/live`)) === 'ECONNREFUSED', { ms: 5000, what: 'connections refused' });
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise((resolve) => res.on('end', resolve).resume());
    const checks = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    expect(checks.length).toBeGreaterThan(1000);
    expect(await exit).toBe(0);
    expect(output()).not.toMatch(/Cut at shutdown/);
  });

  it('under the supervisor (WEB_CONCURRENCY=2): every worker fails readiness, drains, cuts its export, and the service exits 0', async () => {
    const { child, base, output } = await startServer({ WEB_CONCURRENCY: '2', SHUTDOWN_DRAIN_MS: '6000', SHUTDOWN_TIMEOUT_MS: '300' });
    const { res } = await heldDownload(`${base}/v2/patrollerchecks`, { 'X-Request-Id': 'held-export-2' });
    res.on('error', () => undefined);
    const exit = exited(child);
    child.kill('SIGTERM');
    // Two new connections in a row: the workers take them in turn, and both say they are stopping (within
    // the drain, which leaves a busy machine time to pass the signal on to both workers).
    await eventually(async () => (await statusOf(`${base}/health/ready`)) === 503 && (await statusOf(`${base}/health/ready`)) === 503, {
      ms: 5000,
      what: 'readiness 503 from both workers',
    });
    expect(await statusOf(`${base}/health/live`)).toBe(200);
    expect(await exit).toBe(0);
    expect(output()).toMatch(/\[worker \d+\] Cut at shutdown: GET \/v2\/patrollerchecks \(request held-export-2\)/);
    res.destroy();
  });
});

describe('SIGINT after a PDF was printed', () => {
  it('drains for SHUTDOWN_DRAIN_MS as without one, then closes its Chromium and exits (Playwright takes no signal)', async () => {
    const { child, base, output } = await startServer({ SHUTDOWN_DRAIN_MS: '2000' });
    const pdf = await new Promise<{ status: number; type: string }>((resolve, reject) =>
      http
        .get(`${base}/admin/riders/100001/report.pdf?paper=A4`, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']) }));
        })
        .on('error', reject),
    );
    expect(pdf).toEqual({ status: 200, type: 'application/pdf' });
    const exit = exited(child);
    const signalled = Date.now();
    child.kill('SIGINT');
    await eventually(async () => (await statusOf(`${base}/health/ready`)) === 503, { ms: 1000, what: 'readiness 503 after SIGINT' });
    await eventually(async () => (await statusOf(`${base}/health/live`)) === 'ECONNREFUSED', { ms: 8000, what: 'connections refused' });
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(2000);
    expect(await exit).toBe(0);
    expect(output()).toMatch(/Stopped\./);
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

  it('stops its PostgreSQL too when a request outlasts SHUTDOWN_TIMEOUT_MS (cut, and still an orderly stop)', async () => {
    const { child, base, output } = await startServer({
      DATABASE_URL: '',
      EMBEDDED_PG_DIR: dataDir(),
      SHUTDOWN_DRAIN_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '500',
    });
    const pid = postmasterPid();
    const { res } = await heldDownload(`${base}/v2/patrollerchecks`);
    res.on('error', () => undefined);
    const exit = exited(child);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(output()).toMatch(/Cut at shutdown: GET \/v2\/patrollerchecks/);
    expect(alive(pid)).toBe(false);
    res.destroy();
  });

  it('takes over a PostgreSQL left running by a killed start, and stops it with itself', async () => {
    const first = await startServer({ DATABASE_URL: '', EMBEDDED_PG_DIR: dataDir(), SHUTDOWN_DRAIN_MS: '0' });
    const pid = postmasterPid();
    const killed = exited(first.child);
    first.child.kill('SIGKILL');
    await killed;
    expect(alive(pid)).toBe(true); // nobody stopped it

    const second = await startServer({ DATABASE_URL: '', EMBEDDED_PG_DIR: dataDir(), SHUTDOWN_DRAIN_MS: '0' });
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
    let server: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      // Its own process group, as a terminal's foreground job: Ctrl-C signals every process in it.
      server = await startServer(
        // With tokens, as a newcomer runs it, reloaded more often than the drain lasts: a reload meeting the
        // stopped database would show.
        { DATABASE_URL: '', EMBEDDED_PG_DIR: path.join(dir, 'pg'), SHUTDOWN_DRAIN_MS: '500', AUTH: 'on', AUTH_REFRESH_MS: '100' },
        { detached: true },
      );
      const { child, base, output } = server;
      const demoToken = /Demo API token[^:]*: (\S+)/;
      await eventually(() => demoToken.test(output()), { what: "the banner's demo token" });
      const token = demoToken.exec(output())![1];
      const postmasterPid = Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      // A download in flight keeps the service up until after PostgreSQL has gone.
      const { res } = await heldDownload(`${base}/v2/patrollerchecks`, { Authorization: `Bearer ${token}` });
      res.on('error', () => undefined);
      const started = Date.now();
      const exit = exited(child);
      process.kill(-child.pid!, 'SIGINT');
      await eventually(() => !alive(postmasterPid), { ms: 5000, what: 'PostgreSQL stopped by the Ctrl-C' });
      res.resume();
      expect(await exit).toBe(0);
      expect(Date.now() - started).toBeLessThan(8000);
      expect(alive(postmasterPid)).toBe(false);
      // PostgreSQL going first is no news: neither its closed connections nor a reload that cannot reach it are reported.
      expect(output()).not.toMatch(/connection lost|could not reload|the database is away/);
    } finally {
      // A failure above leaves nothing running: the whole group (the service and its PostgreSQL) is ended.
      if (server && server.child.exitCode === null && server.child.signalCode === null) process.kill(-server.child.pid!, 'SIGKILL');
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

describe('a port another program holds', () => {
  it('is said in one line, and the service exits 1 at once', async () => {
    const holder = http.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      // A drain far longer than the test: had it been waited for, the test would time out.
      await expect(startServer({ PORT: String(port), HOST: '127.0.0.1', SHUTDOWN_DRAIN_MS: '600000' })).rejects.toThrow(
        new RegExp(
          `status 1\\) before it listened:[\\s\\S]*Port ${port} on 127\\.0\\.0\\.1 is in use by another program: stop it, or start on another port \\(PORT=${port + 1} npm start\\)\\.`,
        ),
      );
    } finally {
      holder.close();
    }
  });
});
