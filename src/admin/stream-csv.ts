import { Transform, pipeline, type Readable, type TransformCallback } from 'node:stream';
import type { Response } from 'express';
import { stringify } from 'csv-stringify';
import QueryStream from 'pg-query-stream';
import type { NativeQuery } from '../db/knex';
import type { Pool } from '../db/pool';

const BATCH_ROWS = 500;

export type Row = Record<string, unknown>;

export interface CsvColumn {
  label: string;
  text: (row: Row) => string;
}

/** Turns each row object into the CSV's cells, in the columns' order. */
class RowsToCells extends Transform {
  constructor(private readonly columns: readonly CsvColumn[]) {
    super({ objectMode: true });
  }
  _transform(row: Row, _encoding: BufferEncoding, done: TransformCallback): void {
    done(null, this.columns.map((column) => column.text(row)));
  }
}

class ClientGone extends Error {
  constructor() {
    super('client closed the connection before the first row');
  }
}

/** Resolves when the stream has a row (or has ended), rejects on its error or when the client leaves. */
function firstRow(rows: Readable, res: Response): Promise<void> {
  return new Promise<void>((resolve, reject) => {
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
}

/**
 * Streams every row of a query as a CSV download: a server-side cursor read in batches, through
 * csv-stringify, to the socket, with backpressure all the way, so memory stays bounded at any size.
 * Nothing is written before the first row arrives, so a database error still becomes an error page.
 * The pooled client goes back on finish, and is discarded (its statement cancelled) on error or when
 * the client leaves half-way.
 */
export async function streamCsv(
  pool: Pool,
  query: NativeQuery,
  res: Response,
  { filename, columns }: { filename: string; columns: readonly CsvColumn[] },
): Promise<void> {
  const client = await pool.connect();
  const rows = client.query(new QueryStream(query.text, query.values, { batchSize: BATCH_ROWS }));
  rows.on('error', () => undefined); // reported through firstRow() or pipeline()

  let released = false;
  const release = (error?: Error) => {
    if (released) return;
    released = true;
    if (error) {
      const pid = (client as unknown as { processID: number }).processID;
      pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
    }
    client.release(error);
  };

  try {
    await firstRow(rows, res);
  } catch (error) {
    rows.destroy();
    release(error as Error);
    if (error instanceof ClientGone) return;
    throw error;
  }

  res
    .status(200)
    .type('text/csv; charset=utf-8')
    .set('Content-Disposition', `attachment; filename="${filename}"`)
    .set('Cache-Control', 'no-store');
  // The byte order mark tells spreadsheet programs the file is UTF-8 (Arabic names stay readable).
  const csv = stringify({ header: true, columns: columns.map((c) => c.label), bom: true });
  pipeline(rows, new RowsToCells(columns), csv, res, (error) => release(error ?? undefined));
}
