// The read router's decision, on a clock and readings of the test's own: a replica serves a read only
// while its last reading plus that reading's age is within REPLICA_MAX_LAG_MS.
import { EventEmitter } from 'node:events';
import type { Pool } from '../src/db/pool';
import { LagWatch, type LagReading } from '../src/db/replica-lag';
import { ReadRouter, type ReadTarget } from '../src/db/replicas';

/** A stand-in for a pool: the router only listens for its errors and reads its address here. */
const fakePool = (url: string) => Object.assign(new EventEmitter(), { options: { connectionString: url } }) as unknown as Pool;

const target = (name: string, role: ReadTarget['role']): ReadTarget => {
  const url = `postgres://127.0.0.1:5432/${name.replace(' ', '_')}`;
  return { name, role, address: url, queries: fakePool(url), streams: fakePool(url) };
};

function setUp(options: { maxLagMs?: number; checkMs?: number; replicas?: number } = {}) {
  let now = 0;
  const logs: string[] = [];
  const primary = target('primary', 'primary');
  const replicas = Array.from({ length: options.replicas ?? 1 }, (_, i) => target(`replica ${i + 1}`, 'replica'));
  const router = new ReadRouter(primary, replicas, {
    maxLagMs: options.maxLagMs ?? 3000,
    checkMs: options.checkMs ?? 2000,
    told: true,
    now: () => now,
    log: (m) => logs.push(m),
  });
  return {
    router,
    primary,
    replicas,
    logs,
    at: (ms: number) => {
      now = ms;
      return router;
    },
  };
}

const reading = (lagMs: number | null, at: number): LagReading => ({ lagMs, at, ...(lagMs === null ? { error: 'refused' } : {}) });

describe('ReadRouter: a replica only while its lag is known to be within REPLICA_MAX_LAG_MS', () => {
  it('serves from a replica until its last lag plus that reading’s age passes the bound, not until the next check', () => {
    const { at, primary, replicas } = setUp({ maxLagMs: 3000, checkMs: 2000 });
    expect(at(0).pick()).toBe(primary); // not checked yet
    expect(at(0).status()[1]).toEqual(expect.objectContaining({ in_rotation: false, reason: 'not checked yet' }));

    at(0).apply([reading(2500, 0)]);
    expect(at(400).pick()).toBe(replicas[0]);
    expect(at(500).pick()).toBe(replicas[0]); // 2500 + 500: at the bound
    // 2500 + 501 > 3000: the replica may be further behind than allowed, though no check says so yet.
    expect(at(501).pick()).toBe(primary);
    expect(at(1999).primaryServesReads()).toBe(true);
    expect(at(1999).status()[1]).toEqual(
      expect.objectContaining({
        in_rotation: false,
        lag_ms: 2500,
        reason: 'may be 4499 ms behind (REPLICA_MAX_LAG_MS 3000): 2500 ms at its last check, 1999 ms ago',
      }),
    );

    // The next check says it caught up: in again, for 3000 ms after that check was sent.
    at(2100).apply([reading(0, 2000)]);
    expect(at(2100).pick()).toBe(replicas[0]);
    expect(at(5000).pick()).toBe(replicas[0]);
    expect(at(5001).pick()).toBe(primary);
  });

  it('keeps out a replica a check finds too far behind, or could not check', () => {
    const { router, at, primary } = setUp({ maxLagMs: 3000 });
    at(0).apply([reading(3001, 0)]);
    expect(at(0).pick()).toBe(primary);
    expect(at(0).status()[1].reason).toBe('replay is 3001 ms behind (REPLICA_MAX_LAG_MS 3000)');
    at(2000).apply([reading(null, 2000)]);
    expect(at(2000).pick()).toBe(primary);
    expect(router.status()[1]).toEqual(expect.objectContaining({ lag_ms: null, reason: 'check failed (refused)' }));
  });

  it('ignores a reading older than the one it holds (a slow check that ends after a newer one)', () => {
    const { at, primary, replicas } = setUp({ maxLagMs: 3000 });
    at(2000).apply([reading(0, 2000)]);
    at(2500).apply([reading(2900, 1000)]);
    expect(at(4900).pick()).toBe(replicas[0]);
    expect(at(5001).pick()).toBe(primary);
  });

  it('makes the same decision in every worker given the same readings: one clock, one bound', () => {
    const workers = [setUp({ maxLagMs: 1000, checkMs: 400 }), setUp({ maxLagMs: 1000, checkMs: 400 })];
    // A replica whose replay stops at 1000 ms: each check finds it further behind.
    const lagAt = (ms: number) => Math.max(0, ms - 1000);
    const decisions: string[][] = [[], []];
    for (let ms = 0; ms <= 4000; ms += 10) {
      workers.forEach((w, i) => {
        // The readings reach the workers a few ms apart, as messages from their supervisor do.
        if (ms % 400 === (i === 0 ? 20 : 30)) w.at(ms).apply([reading(lagAt(ms - 20), ms - 20)]);
        decisions[i].push(w.at(ms).pick().role);
      });
    }
    const firstPrimary = decisions[0].indexOf('primary', 5);
    // Both leave at the same moment, 1000 ms after replay stopped, and neither comes back while it lags.
    expect(firstPrimary * 10).toBe(2010);
    expect(decisions[1].indexOf('primary', 5)).toBe(firstPrimary);
    expect(decisions[0].slice(firstPrimary).every((role) => role === 'primary')).toBe(true);
    expect(decisions[1].slice(firstPrimary).every((role) => role === 'primary')).toBe(true);
  });

  it('never takes back a replica a moment after its deadline passed, though a faster check moves it on a little', () => {
    const workers = [setUp({ maxLagMs: 1000, checkMs: 250 }), setUp({ maxLagMs: 1000, checkMs: 250 })];
    // Replay stops at 1000 ms. Checks take 150 ms on a busy machine (the lag is read at their end), but
    // the one sent at 1750 only 100 ms: it finds the replica 850 ms behind, which alone would keep it in
    // until 1900, and it reaches the workers at 1856 and 1863, after the deadline the others set (1850).
    const took = (at: number) => (at === 1750 ? 100 : 150);
    const readingAt = (at: number): LagReading => ({ lagMs: Math.max(0, at + took(at) - 1000), at, received: at + took(at) + 5 });
    const decisions: string[][] = [[], []];
    let why = '';
    for (let ms = 0; ms <= 3000; ms++) {
      workers.forEach((w, i) => {
        for (let at = 0; at <= 3000; at += 250) if (ms === readingAt(at).received! + (i === 0 ? 1 : 8)) w.at(ms).apply([readingAt(at)]);
        decisions[i].push(w.at(ms).pick().role);
      });
      if (ms === 1870) why = workers[0].router.status()[1].reason!;
    }
    // In from the first reading; out together at 1851; and neither comes back while the replica lags.
    for (const [i, seen] of decisions.entries()) {
      expect(seen.indexOf('replica')).toBe(i === 0 ? 156 : 163);
      expect(seen.indexOf('primary', 200)).toBe(1851);
      expect(seen.slice(1851).every((role) => role === 'primary')).toBe(true);
    }
    expect(why).toBe(
      '850 ms behind at its last check, 120 ms ago: too near REPLICA_MAX_LAG_MS 1000 to come back (it must be 250 ms within it)',
    );
  });

  it('takes back a replica whose deadline passed only once it has replayed what was committed before it left', () => {
    // Readings late on a busy machine: the last one before replay stopped (the replica's newest commit is
    // at -88) was sent at -600, 50 ms behind, so the replica serves until 350; from 351 the primary does,
    // and a client may read there a change committed at 0 that the replica has not replayed.
    const { at, primary, replicas } = setUp({ maxLagMs: 1000, checkMs: 250 });
    at(-600).apply([{ lagMs: 50, at: -600, received: -590 }]);
    expect(at(350).pick()).toBe(replicas[0]);
    expect(at(351).pick()).toBe(primary);
    // A reading sent at 420 finds it 508 ms behind: within the bound until 912, but its data are from
    // before it left. It stays out, so no client finds the change undone.
    at(470).apply([{ lagMs: 508, at: 420, received: 470 }]);
    expect(at(470).pick()).toBe(primary);
    expect(at(900).pick()).toBe(primary);
    // Replay resumed: a reading that finds it 30 ms behind at 1000 has it past 350, so it comes back.
    at(1010).apply([{ lagMs: 30, at: 1000, received: 1010 }]);
    expect(at(1010).pick()).toBe(replicas[0]);
  });

  it('takes a replica out at once when a check fails, and back only once it has replayed past that moment', () => {
    const { at, primary, replicas } = setUp({ maxLagMs: 1000, checkMs: 250 });
    at(0).apply([reading(0, 0)]);
    expect(at(100).pick()).toBe(replicas[0]);
    at(200).apply([{ lagMs: null, at: 150, received: 200, error: 'timeout' }]);
    expect(at(200).pick()).toBe(primary);
    at(460).apply([{ lagMs: 400, at: 450, received: 460 }]); // its data from 50: before it left at 199
    expect(at(460).pick()).toBe(primary);
    at(710).apply([{ lagMs: 100, at: 700, received: 710 }]); // from 600
    expect(at(710).pick()).toBe(replicas[0]);
  });

  it('drops a replica at once on a connection error, and takes it back only on a check made after it', () => {
    const { at, primary, replicas, logs } = setUp({ maxLagMs: 3000 });
    at(0).apply([reading(0, 0)]);
    at(100);
    replicas[0].queries.emit('error', new Error('terminating connection'));
    expect(at(100).pick()).toBe(primary);
    expect(at(100).status()[1].reason).toBe('connection lost (terminating connection)');
    at(150).apply([reading(0, 50)]); // sent before the error: tells nothing about now
    expect(at(150).pick()).toBe(primary);
    at(300).apply([reading(0, 200)]);
    expect(at(300).pick()).toBe(replicas[0]);
    expect(logs).toEqual([
      'replica 1 (postgres://127.0.0.1:5432/replica_1) leaves the read rotation: connection lost (terminating connection)',
      'replica 1 (postgres://127.0.0.1:5432/replica_1) is back in the read rotation',
    ]);
  });

  it('told: start() returns once the first readings have come', async () => {
    const { router } = setUp({ checkMs: 60000 });
    const started = router.start();
    router.apply([reading(0, Date.now())]);
    await expect(started).resolves.toBeUndefined();
  });
});

describe('LagWatch: the checks behind the readings', () => {
  it('stamps each reading with the times its check was sent and answered, and logs only what changes the verdict', async () => {
    let now = 1000;
    const lags = [0, 10, 5000, 20, null];
    const logs: string[] = [];
    const rounds: Array<Array<LagReading | undefined>> = [];
    const watch = new LagWatch(
      [{ name: 'replica 1', address: '127.0.0.1:5433/db', url: 'postgres://127.0.0.1:5433/db' }],
      {
        maxLagMs: 3000,
        checkMs: 1000,
        now: () => now,
        measure: async () => {
          const lag = lags.shift();
          now += 7; // the check itself takes time, after it was sent
          if (lag === null || lag === undefined) throw new Error('connection refused');
          return lag;
        },
        log: (m) => logs.push(m),
      },
      (readings) => rounds.push(readings),
    );
    // Six seconds before the third check: time enough to fall 5000 ms behind.
    for (const gap of [1000, 6000, 1000, 1000, 1000]) {
      await watch.checkAll();
      now += gap;
    }
    expect(rounds.map((r) => r[0])).toEqual([
      { lagMs: 0, at: 1000, received: 1007 },
      { lagMs: 10, at: 2007, received: 2014 },
      { lagMs: 5000, at: 8014, received: 8021 },
      { lagMs: 20, at: 9021, received: 9028 },
      { lagMs: null, at: 10028, received: 10035, error: 'connection refused' },
    ]);
    expect(logs).toEqual([
      'replica 1 (127.0.0.1:5433/db) is in the read rotation (0 ms behind)',
      'replica 1 (127.0.0.1:5433/db) leaves the read rotation: replay is 5000 ms behind (REPLICA_MAX_LAG_MS 3000)',
      'replica 1 (127.0.0.1:5433/db) is in the read rotation (20 ms behind)',
      'replica 1 (127.0.0.1:5433/db) leaves the read rotation: check failed (connection refused)',
    ]);
  });

  it('never reports a replica staler than the last reading allows, aged by the time between the two', async () => {
    let now = 0;
    const lags = [0, 900, 2000, 0];
    const rounds: Array<LagReading | undefined> = [];
    const watch = new LagWatch(
      [{ name: 'replica 1', address: 'a', url: 'postgres://a/b' }],
      {
        maxLagMs: 1000,
        checkMs: 100,
        now: () => now,
        // A check judged by the last replayed commit (900 ms ago) right after one that found the replica up to date.
        measure: async () => lags.shift()!,
      },
      (readings) => rounds.push(readings[0]),
    );
    for (const gap of [100, 3000, 100, 100]) {
      await watch.checkAll();
      now += gap;
    }
    expect(rounds.map((r) => r?.lagMs)).toEqual([
      0, // up to date when checked
      100, // at most 0 + the 100 ms since, not 900
      2000, // 3.1 s later: 100 + 3000 allows the check's own 2000
      0, // caught up
    ]);
  });

  it('keeps the newer reading when an older check ends last', async () => {
    let now = 0;
    const ends: Array<() => void> = [];
    const watch = new LagWatch(
      [{ name: 'replica 1', address: 'a', url: 'postgres://a/b' }],
      {
        maxLagMs: 3000,
        checkMs: 1000,
        now: () => now,
        // The first check finds 100 ms, the second 200 ms.
        measure: (): Promise<number> =>
          new Promise((resolve) =>
            ends.push(
              (
                (lag) => () =>
                  resolve(lag)
              )((ends.length + 1) * 100),
            ),
          ),
      },
      () => undefined,
    );
    const slow = watch.checkAll();
    now = 1000;
    const fast = watch.checkAll();
    ends[1]();
    await fast;
    ends[0]();
    await slow;
    expect(watch.latest()[0]).toEqual({ lagMs: 200, at: 1000, received: 1000 });
  });
});
