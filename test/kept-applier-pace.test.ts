// How the kept data's applier paces its batches (src/db/kept-applier.ts, pace()): it keeps up while it
// can, yields to writers that log faster than it could apply, and takes larger batches while nobody logs.
import { pace, yieldOver } from '../src/db/kept-applier';

const batch = 1000;

describe('the applier after a batch', () => {
  it('waits the usual pause when the batch was not full: the log is caught up', () => {
    expect(pace({ batch, size: 1000, taken: 400, tookMs: 100, inflow: 0 })).toEqual({ size: 1000 });
    expect(pace({ batch, size: 4000, taken: 0, tookMs: 5, inflow: 0 })).toEqual({ size: 1000 });
    // Another process applies (-1): the usual follower's pause.
    expect(pace({ batch, size: 1000, taken: -1, tookMs: 2, inflow: 5000 })).toEqual({ size: 1000 });
  });

  it('goes on at once while it applies faster than the writers log', () => {
    // 1,000 rows in 500 ms: 2,000 a second; the writers log 1,500.
    expect(pace({ batch, size: 1000, taken: 1000, tookMs: 500, inflow: 1500 })).toEqual({ size: 1000, pauseMs: 0 });
  });

  it('yields nine tenths of its time while the writers log faster than it could apply', () => {
    // 1,000 rows in 500 ms; the writers log 10,000 a second: it works a tenth of the time.
    expect(pace({ batch, size: 1000, taken: 1000, tookMs: 500, inflow: 10_000 })).toEqual({ size: 1000, pauseMs: 4500, resumeBelow: 2000 });
  });

  it('takes four times larger batches while the writers log less than a tenth of what it applies', () => {
    expect(pace({ batch, size: 1000, taken: 1000, tookMs: 500, inflow: 0 })).toEqual({ size: 4000, pauseMs: 0 });
    expect(pace({ batch, size: 4000, taken: 4000, tookMs: 1600, inflow: 100 })).toEqual({ size: 4000, pauseMs: 0 });
    // Writers back: batches of 1,000 again, so that a batch holds the riders' rows for a short while.
    expect(pace({ batch, size: 4000, taken: 4000, tookMs: 1600, inflow: 1000 })).toEqual({ size: 1000, pauseMs: 0 });
  });

  it('takes no more rows than the last batch applied in 3 s, and grows back once batches are quick', () => {
    // 4,000 riders moved between 3PLs at 1,000,000 riders: 30 s. The next holds 400 rows, about 3 s.
    expect(pace({ batch, size: 4000, taken: 4000, tookMs: 30_000, inflow: 0 })).toEqual({ size: 400, pauseMs: 0 });
    // Never fewer than 50, however slow.
    expect(pace({ batch, size: 400, taken: 400, tookMs: 120_000, inflow: 0 }).size).toBe(50);
    // Quick again: back to the rule's size.
    expect(pace({ batch, size: 400, taken: 400, tookMs: 100, inflow: 0 })).toEqual({ size: 4000, pauseMs: 0 });
    // Yielding to writers after a long batch pauses nine times 3 s at most, not nine times the batch.
    expect(pace({ batch, size: 1000, taken: 1000, tookMs: 10_000, inflow: 5000 })).toEqual({
      size: 300,
      pauseMs: 27_000,
      resumeBelow: 100,
    });
  });

  it('ends a pause for the writers once they log no faster than it applies, not when the pause is up', () => {
    // Yielding after a batch that applied 2,000 rows a second, for 4.5 s.
    const { pauseMs, resumeBelow } = pace({ batch, size: 1000, taken: 1000, tookMs: 500, inflow: 10_000 });
    const y = { untilMs: pauseMs!, resumeBelow: resumeBelow! };
    // The writers still log 10,000 rows a second a second into it: it goes on waiting.
    expect(yieldOver(y, 1000, 10_000)).toBe(false);
    expect(yieldOver(y, 1000, 2001)).toBe(false);
    // They stopped (or slowed to what it applies): it applies at once, 3.5 s early.
    expect(yieldOver(y, 1000, 0)).toBe(true);
    expect(yieldOver(y, 1000, 2000)).toBe(true);
    // However fast they log, the pause ends when it is up.
    expect(yieldOver(y, 4500, 10_000)).toBe(true);
  });
});
