import type { NextFunction, Request, RequestHandler, Response } from 'express';

// The API first. The API and the admin pages share this process's one thread and the database's
// cores: a supervisor's page costs as much CPU as twenty API answers, so eight supervisors clicking
// without pause took two thirds of a busy API's throughput (issue 43). While the API is busy (a request
// in flight, or one ended less than `idleMs` ago), admin pages take turns: one at a time, each followed by
// a pause so that pages hold at most `share` of the time (a page holds its turn `holdMs` at most, so one
// slow page never holds the others); an idle API leaves them `concurrency` at once, without pause. A page waiting its turn whose client leaves is dropped from the line. CSV downloads and
// reports are not held here: they have their places (src/http/stream-limit.ts).

export interface ApiFirstOptions {
  /** The share of the time admin pages may hold while the API is busy, 0 < share ≤ 1 (ADMIN_SHARE_WHEN_API_BUSY); 1: no turns. */
  share: number;
  /** Admin pages at once while the API is idle (their connections). */
  concurrency: number;
  /** The API counts as busy this long after its last answer. */
  idleMs?: number;
  /** The longest a page holds its turn: past it, the next may start (one slow page never holds the others). */
  holdMs?: number;
  /** The longest pause after one page. */
  maxPauseMs?: number;
  now?: () => number;
}

export interface ApiFirstStatus {
  apiInFlight: number;
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
  idleMs = 50,
  holdMs = 100,
  maxPauseMs = 100,
  now = () => performance.now(),
}: ApiFirstOptions): ApiFirst {
  let apiInFlight = 0;
  let apiLastEnd = -Infinity;
  let running = 0;
  let nextAt = -Infinity; // when the API is busy, no page starts before this
  let timer: NodeJS.Timeout | undefined;
  let waited = 0;
  let waitedMs = 0;
  const line: Waiting[] = [];
  const busy = (at: number) => apiInFlight > 0 || at - apiLastEnd < idleMs;

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
        // The pause after the last page, or until the API counts as idle: whichever comes first.
        const wait = Math.min(nextAt - at, Math.max(0, apiInFlight > 0 ? Infinity : apiLastEnd + idleMs - at));
        timer = setTimeout(pump, Math.max(1, Math.ceil(wait)));
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
    apiInFlight++;
    let done = false;
    res.once('close', () => {
      if (done) return;
      done = true;
      apiInFlight--;
      apiLastEnd = now();
      if (line.length && !timer) {
        timer = setTimeout(pump, idleMs);
        timer.unref?.();
      }
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
    status: () => ({ apiInFlight, adminRunning: running, adminWaiting: line.length, adminWaited: waited, adminWaitedMs: waitedMs }),
  };
}
