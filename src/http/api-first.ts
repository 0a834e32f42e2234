import type { NextFunction, Request, RequestHandler, Response } from 'express';

// The API first. The API and the admin pages share this process's one thread and the database's
// cores: a supervisor's page costs as much CPU as twenty API answers, so eight supervisors clicking
// without pause took two thirds of a saturated API's throughput (issue 43). While the API is busy (it
// had a request in flight at least half of the last `windowMs` or so: an exponential average, so a few
// requests a second leave it idle), admin pages take turns: one at a time, each followed by a pause so
// that pages hold at most `share` of the time (a page holds its turn `holdMs` at most, so one slow page
// never holds the others). An idle API leaves them `concurrency` at once, without pause. A page waiting
// its turn whose client leaves is dropped from the line. CSV downloads and reports are not held here:
// they have their places (src/http/stream-limit.ts).

export interface ApiFirstOptions {
  /** The share of the time admin pages may hold while the API is busy, 0 < share ≤ 1 (ADMIN_PERCENT_WHEN_API_BUSY / 100); 1: no turns. */
  share: number;
  /** Admin pages at once while the API is idle (their connections). */
  concurrency: number;
  /** The time constant of the API's occupancy (the share of the time it had a request in flight). */
  windowMs?: number;
  /** The occupancy from which the API counts as busy. */
  busyAt?: number;
  /** The longest a page holds its turn: past it, the next may start (one slow page never holds the others). */
  holdMs?: number;
  /** The longest pause after one page. */
  maxPauseMs?: number;
  now?: () => number;
}

export interface ApiFirstStatus {
  apiInFlight: number;
  /** The share of the recent time the API had a request in flight (see windowMs). */
  apiOccupancy: number;
  adminRunning: number;
  adminWaiting: number;
  /** Admin pages that waited for their turn, and how long in all (ms), since the start. */
  adminWaited: number;
  adminWaitedMs: number;
}

export interface ApiFirst {
  /** Before the API's routes: counts its requests in flight. */
  api: RequestHandler;
  /** Before the admin pages: each waits its turn while the API is busy. */
  admin: RequestHandler;
  status(): ApiFirstStatus;
}

interface Waiting {
  start: () => void;
  since: number;
  /** Not started at once: it waited its turn. */
  queued?: boolean;
}

export function apiFirst({
  share,
  concurrency,
  windowMs = 200,
  busyAt = 0.5,
  holdMs = 100,
  maxPauseMs = 100,
  now = () => performance.now(),
}: ApiFirstOptions): ApiFirst {
  let apiInFlight = 0;
  let occupancy = 0; // the API's share of the recent time with a request in flight, as of `measured`
  let measured = now();
  let running = 0;
  let nextAt = -Infinity; // when the API is busy, no page starts before this
  let timer: NodeJS.Timeout | undefined;
  let waited = 0;
  let waitedMs = 0;
  const line: Waiting[] = [];
  /** Brings the occupancy up to `at`: it moves toward 1 while a request is in flight, toward 0 otherwise. */
  const advance = (at: number) => {
    const decay = Math.exp(-(at - measured) / windowMs);
    occupancy = occupancy * decay + (apiInFlight > 0 ? 1 - decay : 0);
    measured = at;
  };
  const busy = (at: number) => {
    advance(at);
    return occupancy >= busyAt;
  };

  function pump(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    while (line.length) {
      const at = now();
      if (!busy(at)) {
        if (running >= concurrency) return;
      } else if (running > 0) {
        return; // one at a time; the page's end pumps again
      } else if (at < nextAt) {
        // The pause after the last page (at its end, the API may be idle: then all go).
        timer = setTimeout(pump, Math.max(1, Math.ceil(nextAt - at)));
        timer.unref?.();
        return;
      }
      const next = line.shift()!;
      if (next.queued) {
        waited++;
        waitedMs += at - next.since;
      }
      next.start();
    }
  }

  const api: RequestHandler = (_req, res, next) => {
    advance(now());
    apiInFlight++;
    let done = false;
    res.once('close', () => {
      if (done) return;
      done = true;
      advance(now());
      apiInFlight--;
    });
    next();
  };

  const admin = (req: Request, res: Response, next: NextFunction) => {
    if (share >= 1 || req.path.endsWith('.csv') || req.path.endsWith('.pdf')) return next();
    const entry: Waiting = {
      since: now(),
      start: () => {
        running++;
        const started = now();
        let ended = false;
        // The page's turn ends with it, or after `holdMs`: a slow page never holds the others' turns.
        const end = () => {
          if (ended) return;
          ended = true;
          clearTimeout(held);
          running--;
          const at = now();
          if (busy(at)) nextAt = at + Math.min(maxPauseMs, ((at - started) * (1 - share)) / share);
          pump();
        };
        const held = setTimeout(end, holdMs);
        held.unref?.();
        res.once('close', end);
        next();
      },
    };
    // A client that leaves while its page waits: the page is not started.
    res.once('close', () => {
      const at = line.indexOf(entry);
      if (at >= 0) line.splice(at, 1);
    });
    line.push(entry);
    pump();
    if (line.includes(entry)) entry.queued = true;
  };

  return {
    api,
    admin,
    status: () => {
      advance(now());
      return {
        apiInFlight,
        apiOccupancy: occupancy,
        adminRunning: running,
        adminWaiting: line.length,
        adminWaited: waited,
        adminWaitedMs: waitedMs,
      };
    },
  };
}
