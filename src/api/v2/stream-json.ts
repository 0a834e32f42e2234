import { Transform, pipeline, type TransformCallback } from 'node:stream';
import type { Response } from 'express';
import QueryStream from 'pg-query-stream';
import type { Pool } from '../../db/pool';
import type { NativeQuery } from '../../db/knex';

const BATCH_ROWS = 500;

/** Joins rows that each hold one JSON text into one JSON array text. */
class JsonArray extends Transform {
  private first = true;
  constructor() {
    super({ writableObjectMode: true, readableObjectMode: false });
  }
  _transform(row: [string], _encoding: BufferEncoding, done: TransformCallback): void {
    done(null, this.first ? ((this.first = false), `[${row[0]}`) : `,${row[0]}`);
  }
  _flush(done: TransformCallback): void {
    done(null, this.first ? '[]' : ']');
  }
}

class ClientGone extends Error {
  constructor() {
    super('client closed the connection before the first row');
  }
}

/**
 * Streams a query whose rows each hold one JSON text (column 0) as a JSON array, from a server-side
 * cursor to the socket with backpressure. Until the first row is read, nothing is written, so a
 * database error still becomes a proper error response. If the client goes away, the running
 * statement is cancelled and its connection is discarded rather than returned half-used.
 */
export async function streamJsonArray(pool: Pool, query: NativeQuery, res: Response): Promise<void> {
  const client = await pool.connect();
  const rows = client.query(new QueryStream(query.text, query.values, { batchSize: BATCH_ROWS, rowMode: 'array' }));
  rows.on('error', () => undefined); // reported through the first-row wait or pipeline()

  let released = false;
  const release = (error?: Error) => {
    if (released) return;
    released = true;
    if (error) {
      pool.query('SELECT pg_cancel_backend($1)', [(client as unknown as { processID: number }).processID]).catch(() => undefined);
    }
    client.release(error);
  };

  try {
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        rows.off('readable', onReadable).off('error', settle);
        res.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onReadable = () => settle();
      const onClose = () => settle(new ClientGone());
      rows.once('readable', onReadable).once('error', settle);
      res.once('close', onClose);
    });
  } catch (error) {
    rows.destroy();
    release(error as Error);
    if (error instanceof ClientGone) return;
    throw error;
  }

  res.status(200).type('application/json');
  pipeline(rows, new JsonArray(), res, (error) => release(error ?? undefined));
}
