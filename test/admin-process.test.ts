import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import pg from 'pg';
import { createSupervisor } from '../src/auth/supervisors';
import { useDatabase } from './support/databases';
import { buildOnce, exited, startServer, withServer } from './support/server-process';
import { eventually, holdsFor } from './support/wait';

// The admin pages in a process of their own (src/runtime/admin-process.ts): the built server as a real
// process, its connections opened the way browsers and integrators open them.
jest.setTimeout(60000);
beforeAll(buildOnce);

/** The service's other processes: those whose parent is `pid` (Linux's /proc). */
function childrenOf(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** The niceness of each thread of `pid`. */
function niceOfThreads(pid: number): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

/** A request written in `parts`, `gapMs` apart, on a connection of its own; resolves with the answer's status line. */
function rawStatus(base: string, parts: string[], gapMs = 50): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString('latin1');
      if (answer.includes('\r\n')) {
        resolve(answer.split('\r\n')[0]);
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.on('connect', async () => {
      for (const [i, part] of parts.entries()) {
        if (i) await new Promise((r) => setTimeout(r, gapMs));
        socket.write(part);
      }
    });
  });
}

/** GETs on one keep-alive connection, in turn: their statuses. */
async function onOneConnection(base: string, paths: string[], headers: Record<string, string> = {}): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const sockets = new Set<unknown>();
  const statuses: number[] = [];
  try {
    for (const path of paths) {
      statuses.push(
        await new Promise<number>((resolve, reject) => {
          const req = http.get(`${base}${path}`, { agent, headers }, (res) => {
            sockets.add(res.socket);
            res.resume().on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject);
        }),
      );
    }
  } finally {
    agent.destroy();
  }
  expect(sockets.size).toBe(1);
  return statuses;
}

/** What the sign-in answers a wrong password with. */
const wrongPassword = 'HTTP/1.1 401 Unauthorized';

const get = (url: string, timeoutMs = 5000) =>
  new Promise<number | 'timeout'>((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.setTimeout(timeoutMs, () => {
      req.destroy();
      resolve('timeout');
    });
    req.on('error', reject);
  });

const handedOver = async (base: string) => Number(/^admin_process_connections_total (\d+)/m.exec(await getBody(`${base}/metrics`))?.[1]);

function getBody(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

/** Waits until the admin process takes admin connections; resolves with its pid. */
async function adminProcessOf(server: { child: { pid?: number }; base: string }): Promise<number> {
  await eventually(
    async () => {
      const before = await handedOver(server.base);
      await get(`${server.base}/admin`);
      return (await handedOver(server.base)) > before;
    },
    { ms: 15000, what: 'an admin connection handed to the admin process' },
  );
  const [pid] = childrenOf(server.child.pid!);
  expect(pid).toBeDefined();
  return pid;
}

describe('the admin pages in a process of their own', () => {
  it('gets each connection that opens with an admin page, at ADMIN_NICE on every thread; the API is not held by it', async () => {
    await withServer({ ADMIN_NICE: '7' }, async (server) => {
      const admin = await adminProcessOf(server);
      expect(niceOfThreads(admin).every((nice) => nice === 7)).toBe(true);
      expect(niceOfThreads(server.child.pid!).every((nice) => nice === 0)).toBe(true);
      // The admin process stopped: a new admin connection waits for it, the API does not.
      process.kill(admin, 'SIGSTOP');
      try {
        const page = get(`${server.base}/admin`, 20000);
        expect(await get(`${server.base}/v2/questioner?country_id=1`)).toBe(200);
        expect(await get(`${server.base}/health/ready`)).toBe(200);
        let answered = false;
        void page.then(() => (answered = true));
        await holdsFor(() => !answered, 300, { what: 'the page unanswered while its process is stopped' });
        process.kill(admin, 'SIGCONT');
        expect(await page).toBe(200);
      } finally {
        process.kill(admin, 'SIGCONT');
      }
    });
  });

  it('answers whatever a connection asks next, and requests whose first bytes come in pieces', async () => {
    await withServer({ AUTH: 'on' }, async ({ base, child }) => {
      await adminProcessOf({ base, child });
      // Opened by the API, then a page; opened by a page, then the API: each answered where it is.
      expect(await onOneConnection(base, ['/health/live', '/admin/sign-in', '/v2/questioner'])).toEqual([200, 200, 401]);
      expect(await onOneConnection(base, ['/admin/sign-in', '/v2/questioner', '/health/live', '/admin/sign-in'])).toEqual([
        200, 401, 200, 200,
      ]);
      const before = await handedOver(base);
      // Cut inside the request line: the listening process reads on until the line says where it goes.
      expect(await rawStatus(base, ['GET /adm', 'in/sign-in HTTP/1.1\r\nHost: x\r\n\r\n'])).toBe('HTTP/1.1 200 OK');
      // Cut inside the headers: handed over, read whole.
      expect(await rawStatus(base, ['GET /admin/sign-in HTTP/1.1\r\nHo', 'st: x\r\nAccept: text/html\r\n\r\n'])).toBe('HTTP/1.1 200 OK');
      // A sign-in whose form comes in pieces after its headers: read whole (a wrong password, said as such).
      const page = await fetch(`${base}/admin/sign-in`);
      const cookie = page.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1];
      const form = new URLSearchParams({ username: 'nobody-here', password: 'not-the-password', _csrf: csrf }).toString();
      const head =
        `POST /admin/sign-in HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\n` +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n`;
      expect(await rawStatus(base, [head, form.slice(0, 10), form.slice(10)])).toBe(wrongPassword);
      expect((await handedOver(base)) - before).toBe(4);
    });
  });

  it('shares the sessions: a supervisor signed in on one process is signed in on the other', async () => {
    const url = await useDatabase('demo');
    const db = new pg.Pool({ connectionString: url, max: 1 });
    await createSupervisor(db, { username: 'two-processes', password: 'two-processes-pass' });
    await db.end();
    await withServer({ AUTH: 'on' }, async ({ base, child }) => {
      await adminProcessOf({ base, child });
      const form = await fetch(`${base}/admin/sign-in`);
      const cookie = form.headers.getSetCookie().map((c) => c.split(';')[0]);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
      const signedIn = await fetch(`${base}/admin/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie.join('; ') },
        body: new URLSearchParams({ username: 'two-processes', password: 'two-processes-pass', _csrf: csrf }).toString(),
      });
      expect(signedIn.status).toBe(303);
      const session = signedIn.headers.getSetCookie().map((c) => c.split(';')[0]);
      // A connection opened by /health/live stays with the listening process; the page on it is its to answer.
      expect(await onOneConnection(base, ['/health/live', '/admin/checks'], { cookie: session.join('; ') })).toEqual([200, 200]);
      expect(await onOneConnection(base, ['/admin/checks'], { cookie: session.join('; ') })).toEqual([200]);
    });
  });

  it('serves the pages itself while the admin process is gone, starts another, and both stop at SIGTERM', async () => {
    const server = await startServer({ SHUTDOWN_DRAIN_MS: '200', SHUTDOWN_TIMEOUT_MS: '500' });
    const exit = exited(server.child);
    try {
      const first = await adminProcessOf(server);
      process.kill(first, 'SIGKILL');
      await eventually(() => !fs.existsSync(`/proc/${first}`) || /^Z/.test(fs.readFileSync(`/proc/${first}/stat`, 'utf8').split(') ')[1]), {
        what: 'the admin process gone',
      });
      expect(await get(`${server.base}/admin`)).toBe(200);
      const second = await adminProcessOf(server);
      expect(second).not.toBe(first);
      expect(server.output()).toMatch(new RegExp(`The admin pages' process ${first} exited \\(SIGKILL\\)`));
      server.child.kill('SIGTERM');
      expect(await exit).toBe(0);
      expect(server.output()).toMatch(/Stopped\./);
      await eventually(() => !fs.existsSync(`/proc/${second}`), { what: 'the second admin process gone' });
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('is not started with ADMIN_PROCESS=off', async () => {
    await withServer({ ADMIN_PROCESS: 'off' }, async ({ base, child }) => {
      expect(await get(`${base}/admin`)).toBe(200);
      expect(childrenOf(child.pid!)).toEqual([]);
      expect(await getBody(`${base}/metrics`)).not.toMatch(/admin_process_up/);
    });
  });
});
