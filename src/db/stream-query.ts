import type { Duplex, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { Submittable } from 'pg';
import { clientSignal } from '../http/client-signal';
import { becomesIdle, CANCEL_GRACE_MS, stopStatement } from './cancel';
import { ClientGone, ClientIdle, PoolTimeout, StreamsBusy, type Reader } from './pool';

/** A reader of streams: its pool's places (the lane is bound in `acquire`) and how long a client may stall. */
export interface StreamReader extends Reader {
  /** STREAM_IDLE_TIMEOUT_MS; 0 or absent: a stalled client keeps its stream until the statement timeout. */
  idleTimeoutMs?: number;
}

/**
 * Calls `onIdle` once the answer has had bytes waiting for the client for `ms` without the client
 * taking any. Progress is a 'drain' (the socket took what was buffered) or a moment without
 * backpressure; a slow client that keeps reading is never idle. Returns the function that stops watching.
 */
function watchIdle(res: Response, ms: number, onIdle: () => void): () => void {
  if (!ms) return () => undefined;
  let progress = Date.now();
  const onDrain = () => (progress = Date.now());
  res.on('drain', onDrain);
  const timer = setInterval(
    () => {
      if (!res.writableNeedDrain) progress = Date.now();
      else if (Date.now() - progress >= ms) onIdle();
    },
    Math.max(20, Math.min(1000, ms / 4)),
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
  /** A COPY is read to its end after a cancel; a cursor is closed instead. */
  drainOnStop: boolean;
  /** Called at the first data: sets the answer's status and headers, returns the streams between the rows and the socket. */
  respond: () => [Duplex, ...Duplex[]];
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
  const rows = client.query(plan.statement());
  rows.on('error', () => undefined); // reported through firstData() or the pipeline below

  let failure: Error | undefined;
  let idle: ClientIdle | undefined;
  // A client that stops reading would keep its place, and its statement waiting in ClientWrite, for hours.
  const unwatch = watchIdle(res, pool.idleTimeoutMs ?? 0, () => {
    idle ??= new ClientIdle(pool.idleTimeoutMs!);
    res.destroy(idle);
  });
  try {
    await firstData(rows, signal);
    const [head, ...rest] = plan.respond();
    // pipe(), not pipeline(), from the rows: a failing answer must not destroy them half-read (see stopStatement).
    rows.once('error', (error) => head.destroy(error));
    rows.pipe(head);
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
