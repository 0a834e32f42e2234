import type { Readable } from 'node:stream';
import type { Response } from 'express';
import type { Submittable } from 'pg';
import type { Pool } from './pool';

class ClientGone extends Error {
  constructor() {
    super('client closed the connection before the first data');
  }
}

/** Resolves when the stream has data (or has ended), rejects on its error or when the client leaves. */
function firstData(source: Readable, res: Response): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      source.off('readable', onReadable).off('error', settle);
      res.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onReadable = () => settle();
    const onClose = () => settle(new ClientGone());
    source.once('readable', onReadable).once('error', settle);
    res.once('close', onClose);
  });
}

export interface OpenStream<S> {
  rows: S;
  /** Call once the answer has ended: returns the client to the pool, or on error discards it. */
  done: (error?: Error | null) => void;
}

/**
 * Starts a streaming query (a cursor or a COPY) on a pooled client and waits for its first data, so
 * that nothing is written before then and a database error still becomes a proper error answer.
 * When the answer fails or the client goes away, the statement is cancelled and the connection is
 * discarded rather than returned half-used. Resolves undefined if the client left before any data.
 */
export async function openQueryStream<S extends Readable & Submittable>(pool: Pool, makeStream: () => S, res: Response): Promise<OpenStream<S> | undefined> {
  const client = await pool.connect();
  // A server that goes away mid-answer makes the client emit 'error'; unheard, that would end the
  // process. The stream reports the failure; the client is discarded in done().
  const lost = () => undefined;
  client.on('error', lost);
  const rows = client.query(makeStream());
  rows.on('error', () => undefined); // reported through firstData() or the caller's pipeline()

  let released = false;
  const done = (error?: Error | null) => {
    if (released) return;
    released = true;
    client.off('error', lost);
    if (error) {
      const pid = (client as unknown as { processID: number }).processID;
      pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
    }
    client.release(error ?? undefined);
  };

  try {
    await firstData(rows, res);
  } catch (error) {
    rows.destroy();
    done(error as Error);
    if (error instanceof ClientGone) return undefined;
    throw error;
  }
  return { rows, done };
}
