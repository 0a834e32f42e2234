// The seam between the listening process and the admin pages' process (src/runtime/admin-process.ts),
// met the way networks meet it: a form's body in a second write a moment after its headers, and clients
// that hang up half-way. Every request is answered as if it had come whole, or ends with its client;
// nothing a supervisor sent is lost, and no client can stop either process.
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createSupervisor } from '../src/auth/supervisors';
import { appUrl, useDatabase } from './support/databases';
import { csrfToken } from './support/html';
import { buildOnce, startServer, exited } from './support/server-process';
import { eventually } from './support/wait';

jest.setTimeout(120000);
beforeAll(buildOnce);

/** The gaps between a request's headers and its body, in ms, as the issue's clients left them. */
const GAPS = [0, 0.2, 0.5, 1, 2, 10];

/** Waits `ms` (fractions too: timers do whole milliseconds, so the rest is spent yielding to the loop). */
async function pause(ms: number): Promise<void> {
  const end = performance.now() + ms;
  if (ms >= 1) await new Promise((resolve) => setTimeout(resolve, Math.floor(ms)));
  while (performance.now() < end) await new Promise((resolve) => setImmediate(resolve));
}

type Outcome = { status: string; ms: number } | { ended: true };

/**
 * One request on a connection of its own: `head`, then after `gapMs` `body`; abandoned (the connection
 * reset) after the body's first bytes when `abandon`. Resolves with the status line and how long it took,
 * or that the connection ended; gives up after 5 s (an unanswered request is what this file looks for).
 */
function split(port: number, head: string, body: string, gapMs: number, abandon = false): Promise<Outcome | 'unanswered'> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let started = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('unanswered');
    }, 5000);
    const done = (outcome: Outcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done({ status: answer.split('\r\n')[0], ms: performance.now() - started });
    });
    socket.on('error', () => done({ ended: true }));
    socket.on('close', () => done({ ended: true }));
    socket.on('connect', async () => {
      started = performance.now();
      socket.write(head);
      await pause(gapMs);
      if (!abandon) return void socket.write(body);
      socket.write(body.slice(0, Math.ceil(body.length / 2)));
      socket.resetAndDestroy();
      done({ ended: true });
    });
  });
}

const formHead = (path: string, body: string, cookie = '') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${cookie ? `Cookie: ${cookie}\r\n` : ''}` +
  `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;

const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

let db: pg.Pool;
let url: string;
beforeAll(async () => {
  url = await useDatabase('seams');
  db = new pg.Pool({ connectionString: url, max: 1 });
  await createSupervisor(db, { username: 'seams-lead', password: 'seams-lead-pass' });
});
afterAll(() => db.end());

/** Riders on "Not checked lately" today, none handled yet: one for each note the test sends. */
async function uncheckedRiders(n: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT rider_id::text AS id FROM kept_rule_riders WHERE rule = 'unchecked' AND days @> current_date
      AND rider_id NOT IN (SELECT subject_id FROM access.attention_handled) ORDER BY rider_id LIMIT $1`,
    [n],
  );
  expect(rows).toHaveLength(n);
  return rows.map((r) => r.id);
}

describe('form bodies that come after their headers, through the real listener', () => {
  it('stores every note, at every gap, answered; an abandoned one ends and stores nothing', async () => {
    const server = await startServer({ DATABASE_URL: appUrl(url), AUTH: 'on', LOG_REQUESTS: 'on' });
    try {
      const { port } = new URL(server.base);
      // Signed in as a browser is.
      const form = await fetch(`${server.base}/admin/sign-in`);
      const signedIn = await fetch(`${server.base}/admin/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(form) },
        body: new URLSearchParams({ username: 'seams-lead', password: 'seams-lead-pass', _csrf: csrfToken(await form.text()) }).toString(),
      });
      expect(signedIn.status).toBe(303);
      const cookie = cookiesOf(signedIn);
      const page = await fetch(`${server.base}/admin/attention`, { headers: { cookie } });
      const csrf = csrfToken(await page.text());
      const riders = await uncheckedRiders(GAPS.length * 2);

      const note = (gap: number, what: string) => `Called the rider (${what}, ${gap} ms after the headers): كل شيء على ما يرام`;
      // All at once, as a team's browsers send them.
      const outcomes = await Promise.all(
        GAPS.flatMap((gap, i) =>
          [false, true].map(async (abandon): Promise<[number, Outcome | 'unanswered']> => {
            const subject = riders[i * 2 + Number(abandon)];
            const body = new URLSearchParams({ _csrf: csrf, subject, note: note(gap, abandon ? 'abandoned' : 'whole') }).toString();
            return [gap, await split(Number(port), formHead('/admin/attention/unchecked/handled', body, cookie), body, gap, abandon)];
          }),
        ),
      );
      // Whole: each answered 303, not held until a timeout (bounded loosely: a loaded machine is slow). Abandoned: ended.
      for (const [i, [gap, outcome]] of outcomes.entries()) {
        const expected = i % 2 ? { ended: true } : { status: 'HTTP/1.1 303 See Other', fast: true };
        const seen = outcome !== 'unanswered' && 'status' in outcome ? { status: outcome.status, fast: outcome.ms < 10000 } : outcome;
        expect([gap, seen]).toEqual([gap, expected]);
      }
      // Each whole note stored, as typed; no abandoned one.
      const { rows } = await db.query<{ note: string }>(`SELECT note FROM access.attention_handled WHERE note LIKE 'Called the rider (%'`);
      expect(rows.map((r) => r.note).sort()).toEqual(GAPS.map((gap) => note(gap, 'whole')).sort());
      expect(server.output()).not.toMatch(/Unhandled|ECONNRESET|at .+\(.+:\d+:\d+\)/);
      // The access log: each whole note its 303, each abandoned one 499 (its client hung up before any answer).
      await eventually(() => (server.output().match(/"POST \/admin\/attention\/unchecked\/handled" \d+/g) ?? []).length === 12, {
        what: 'a log line for each note',
      });
      const statuses = server
        .output()
        .match(/"POST \/admin\/attention\/unchecked\/handled" (\d+)/g)!
        .map((line) => line.split('" ')[1]);
      expect(statuses.sort()).toEqual([...Array(6).fill('303'), ...Array(6).fill('499')]);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('survives 1,000 of them, whole and abandoned, at every gap: both processes stay, every whole one answered', async () => {
    const server = await startServer({ DATABASE_URL: appUrl(url), AUTH: 'on' });
    const exit = exited(server.child);
    try {
      const { port } = new URL(server.base);
      // The admin process is up and takes admin connections before the load starts.
      await eventually(async () => /^admin_process_up 1/m.test(await (await fetch(`${server.base}/metrics`)).text()), {
        ms: 15000,
        what: 'the admin process up',
      });
      const body = 'username=nobody&password=wrong&_csrf=forged';
      const head = formHead('/admin/sign-in', body);
      const outcomes: Array<Outcome | 'unanswered'> = [];
      for (let wave = 0; wave < 20; wave++) {
        outcomes.push(
          ...(await Promise.all(
            Array.from({ length: 50 }, (_, i) => split(Number(port), head, body, GAPS[(wave + i) % GAPS.length], i % 2 === 1)),
          )),
        );
      }
      const whole = outcomes.filter((_, i) => i % 2 === 0);
      const answered = whole.filter((o): o is { status: string; ms: number } => o !== 'unanswered' && 'status' in o);
      expect({ answered: answered.length, statuses: [...new Set(answered.map((o) => o.status))] }).toEqual({
        answered: 500,
        statuses: ['HTTP/1.1 403 Forbidden'],
      });
      // Answered when whole, not held until a timeout: bounded loosely, as a loaded machine may be slow.
      expect(Math.max(...answered.map((o) => o.ms))).toBeLessThan(10000);
      expect(outcomes.filter((_, i) => i % 2 === 1).every((o) => o !== 'unanswered' && 'ended' in o)).toBe(true);
      // Both processes alive: the listener answers, and its admin process is the first one still.
      expect((await fetch(`${server.base}/health/live`)).status).toBe(200);
      const metrics = await (await fetch(`${server.base}/metrics`)).text();
      expect(metrics).toMatch(/^admin_process_up 1/m);
      // Every whole one went to the admin process (an abandoned one may be reset before its first bytes are read).
      expect(Number(/^admin_process_connections_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(500);
      expect(server.output()).not.toMatch(/exited \(|Unhandled|ECONNRESET/);
      expect(server.child.exitCode).toBeNull();
      server.child.kill('SIGTERM');
      expect(await exit).toBe(0);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
