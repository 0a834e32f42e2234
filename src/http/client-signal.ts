import type { Socket } from 'node:net';
import type { Response } from 'express';

const SIGNAL = Symbol('client signal');
const WATCHERS = Symbol('abort watchers');
type WithSignal = Socket & { [SIGNAL]?: AbortController };
/** A client signal's state in plain fields: read on every statement, where AbortSignal's getters cost more. */
interface Watchers {
  aborted: boolean;
  set: Set<() => void>;
}
type Watched = AbortSignal & { [WATCHERS]?: Watchers };

/**
 * An AbortSignal that aborts when the request's client closes its connection: the database work
 * done for it should then stop (or never start). It belongs to the connection, made at its first
 * request that asks and shared by the requests that follow on it (HTTP/1.1 answers them one after
 * another, and a client that leaves takes all of them along). Per request, that is no controller, no
 * signal and no listener of the response's end: those were a measurable part of each API answer's
 * cost (docs/runs/BENCHMARKS.md).
 */
export function clientSignal(res: Response): AbortSignal {
  const socket = res.req.socket as WithSignal;
  let controller = socket[SIGNAL];
  if (!controller) {
    const created = new AbortController();
    const watchers: Watchers = { aborted: false, set: new Set() };
    (created.signal as Watched)[WATCHERS] = watchers;
    controller = created;
    socket[SIGNAL] = created;
    const abort = () => {
      watchers.aborted = true;
      created.abort();
      for (const watcher of watchers.set) watcher();
      watchers.set.clear();
    };
    if (socket.destroyed) abort();
    else socket.once('close', abort);
  }
  return controller.signal;
}

/**
 * Calls `listener` once when `signal` aborts, until the returned function is called. On a client
 * signal, a place in a plain set rather than an EventTarget listener, whose adding and removing on
 * every statement cost more than the rest of the signal (docs/runs/BENCHMARKS.md).
 */
export function whenAborted(signal: AbortSignal, listener: () => void): () => void {
  const watchers = (signal as Watched)[WATCHERS]?.set;
  if (watchers) {
    watchers.add(listener);
    return () => watchers.delete(listener);
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/** `signal.aborted`, read from a client signal's own field when it is one. */
export function isAborted(signal: AbortSignal): boolean {
  const watchers = (signal as Watched)[WATCHERS];
  return watchers ? watchers.aborted : signal.aborted;
}
