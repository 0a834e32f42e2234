import type { Duplex, Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { PoolClient, Submittable } from 'pg';
import { clientSignal } from '../http/client-signal';
import { becomesIdle, CANCEL_GRACE_MS, stopStatement } from './cancel';
import { ClientGone, ClientIdle, ClientSlow, PoolTimeout, StreamsBusy, type Reader } from './pool';

/** A reader of streams: its pool's places (the lane is bound in `acquire`) and how long a client may stall. */
export interface StreamReader extends Reader {
  /** STREAM_IDLE_TIMEOUT_MS; 0 or absent: a stalled client keeps its stream until the statement timeout. */
  idleTimeoutMs?: number;
  /**
   * STREAM_MIN_RATE (bytes a second; 0: none) over STREAM_MIN_RATE_WINDOW_MS, and STREAM_MIN_RATE_BUSY
   * instead while `busy()` (other requests wait for one of these places).
   */
  minRate?: { bytesPerSecond: number; busyBytesPerSecond: number; windowMs: number; busy: () => boolean };
}

/** Bytes of the answer's socket that have left the process (written to the kernel), from its start. */
function taken(res: Response): number {
  const socket = res.socket;
  return socket ? (socket.bytesWritten ?? 0) - socket.writableLength : 0;
}

/**
 * Calls `onStall` with the reason once the client holds its stream back: when the answer has had bytes
 * waiting for the client for `idleMs` without the client taking any (progress is a 'drain', the socket
 * took what was buffered, or a moment without backpressure), or when, with bytes waiting for it now,
 * the client took less than `minRate` over its window. A client that reads at the rate is never cut; an
 * answer that waits on its statement, not on its client, is never judged. Returns the function that
 * stops watching.
 */
function watchClient(res: Response, idleMs: number, minRate: StreamReader['minRate'], onStall: (reason: ClientGone) => void): () => void {
  const rate = minRate?.bytesPerSecond || minRate?.busyBytesPerSecond ? minRate : undefined;
  if (!idleMs && !rate) return () => undefined;
  let progress = Date.now();
  const onDrain = () => (progress = Date.now());
  res.on('drain', onDrain);
  // The socket may have carried earlier answers (keep-alive): this one's bytes count from here.
  const base = taken(res);
  // What the client had taken at each tick of the last window (the first one at or before its start).
  const samples = [{ at: Date.now(), taken: 0 }];
  const timer = setInterval(
    () => {
      const now = Date.now();
      if (!res.writableNeedDrain) progress = now;
      else if (idleMs && now - progress >= idleMs) return onStall(new ClientIdle(idleMs));
      if (!rate) return;
      samples.push({ at: now, taken: taken(res) - base });
      while (samples.length > 2 && samples[1].at <= now - rate.windowMs) samples.shift();
      const [first, last] = [samples[0], samples[samples.length - 1]];
      // Judged only while bytes wait for the client: a fast client of a slow statement is not slow.
      if (!res.writableNeedDrain || now - first.at < rate.windowMs) return;
      const bytes = last.taken - first.taken;
      const busy = rate.busyBytesPerSecond > rate.bytesPerSecond && rate.busy();
      const min = busy ? rate.busyBytesPerSecond : rate.bytesPerSecond;
      if ((bytes * 1000) / (now - first.at) < min) onStall(new ClientSlow(bytes, now - first.at, min, busy));
    },
    Math.max(20, Math.min(1000, (idleMs || Infinity) / 4, (rate?.windowMs ?? Infinity) / 4)),
  ).unref();
  return () => {
    clearInterval(timer);
    res.off('drain', onDrain);
  };
}

/** Resolves when the stream has data (or has ended), rejects on its error or when the client leaves. */
function firstData(source: Readable, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new ClientGone('before the first row'));
  return new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      source.off('readable', onReadable).off('error', settle);
      signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    };
    const onReadable = () => settle();
    const onAbort = () => settle(new ClientGone('before the first row'));
    source.once('readable', onReadable).once('error', settle);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface StreamPlan<S extends Readable & Submittable> {
  /** Makes the statement: a COPY or a cursor. */
  statement: () => S;
  /**
   * The statement that carries the answer on after the first one's rows (`first`, read to its end); none
   * when the first held them all. Both statements read one snapshot (a READ ONLY, REPEATABLE READ
   * transaction), so no row is read twice or missed between them.
   */
  rest?: (first: S) => S | undefined;
  /** A COPY is read to its end after a cancel; a cursor is closed instead. */
  drainOnStop: boolean;
  /** Called at the first data: sets the answer's status and headers, returns the streams between the rows and the socket. */
  respond: () => [Duplex, ...Duplex[]];
}

/**
 * Pipes `first` into `head` and, once it has ended, the statement `rest` makes (told through `started`,
 * so that a stop reaches the statement running), then commits the transaction they read in and ends
 * `head`; a failure destroys `head`, which fails the answer's pipeline.
 */
function feedRest<S extends Readable & Submittable>(
  client: PoolClient,
  first: S,
  head: Duplex,
  rest: NonNullable<StreamPlan<S>['rest']>,
  started: (rows: S) => void,
): void {
  const read = (rows: S) => {
    rows.pipe(head, { end: false });
    return finished(rows);
  };
  // A statement's rows end before its connection is ready for the next one: wait for that, not queue.
  const ready = async () => {
    if (!(await becomesIdle(client, CANCEL_GRACE_MS))) throw new Error('the statement did not finish after its last row');
  };
  void (async () => {
    await read(first);
    await ready();
    // An answer that failed meanwhile (its client left) starts nothing more: its stop has run already.
    if (head.destroyed) return;
    const next = rest(first);
    if (next) {
      const rows = client.query(next);
      rows.on('error', () => undefined);
      rows.once('error', (error) => head.destroy(error));
      started(rows);
      await read(rows);
      await ready();
    }
    // Before the answer ends: its client may ask for the next one at once, and find this place given back.
    await client.query('COMMIT');
    head.end();
  })().catch((error: unknown) => head.destroy(error as Error));
}

/**
 * Streams one statement's rows to the answer, and resolves only when the answer is over and the
 * statement has stopped in PostgreSQL, with its connection (and so its pool place) given back.
 *
 * Nothing is written before the first data, so a database error still becomes a proper error answer.
 * A client that leaves while waiting for a connection starts nothing (ClientGone); one that leaves
 * mid-answer gets its statement cancelled at once, and the pool place stays taken until the backend
 * is idle again, so the pool's size bounds what runs in PostgreSQL. Rejects with the failure: the
 * database error, or ClientGone.
 */
export async function streamStatement<S extends Readable & Submittable>(
  pool: StreamReader,
  res: Response,
  plan: StreamPlan<S>,
): Promise<void> {
  const signal = clientSignal(res);
  const client = await pool.acquire(signal).catch((error: unknown) => {
    // Every place taken for the whole wait: exports are running, the database is not at fault.
    throw error instanceof PoolTimeout ? new StreamsBusy(error.ms) : error;
  });
  if (plan.rest) {
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
  }
  let rows = client.query(plan.statement());
  rows.on('error', () => undefined); // reported through firstData() or the pipeline below

  let failure: Error | undefined;
  let idle: ClientGone | undefined;
  // A client that stops reading, or reads a trickle, would keep its place, and its statement waiting in
  // ClientWrite, for hours.
  const unwatch = watchClient(res, pool.idleTimeoutMs ?? 0, pool.minRate, (reason) => {
    idle ??= reason;
    res.destroy(idle);
  });
  try {
    await firstData(rows, signal);
    const [head, ...rest] = plan.respond();
    // pipe(), not pipeline(), from the rows: a failing answer must not destroy them half-read (see stopStatement).
    rows.once('error', (error) => head.destroy(error));
    if (plan.rest) feedRest(client, rows, head, plan.rest, (next) => (rows = next));
    else rows.pipe(head);
    await pipeline([head, ...rest, res]);
    if (!(await becomesIdle(client, CANCEL_GRACE_MS))) failure = new Error('the statement did not finish after its last row');
  } catch (error) {
    failure =
      idle ?? (signal.aborted ? new ClientGone(res.headersSent ? 'before the answer ended' : 'before the first row') : (error as Error));
  } finally {
    unwatch();
  }
  if (failure) await stopStatement(client, rows, plan.drainOnStop);
  // A stopped statement's connection is not reused: it is closed, as a safe reset.
  client.release(failure);
  if (failure) throw failure;
}
