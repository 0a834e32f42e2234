import { Transform, type TransformCallback } from 'node:stream';
import type { Response } from 'express';
import { stringify } from 'csv-stringify';
import QueryStream from 'pg-query-stream';
import { to as copyTo } from 'pg-copy-streams';
import type { NativeQuery } from '../db/knex';
import { streamStatement, type StreamReader } from '../db/stream-query';

const BATCH_ROWS = 500;

export type Row = Record<string, unknown>;

export interface CsvColumn {
  label: string;
  text: (row: Row) => string;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?\d+(?:\.\d+)?$/;

/**
 * A cell a spreadsheet program will not run: one that begins with `=`, `+`, `-`, `@`, a tab or a
 * carriage return is a formula to Excel, LibreOffice and Google Sheets (a 3PL named
 * `=HYPERLINK(...)`), so it gets a leading `'` (OWASP's rule), which they show as text. A plain number
 * (`-3`) stays as it is: it is no formula, and a number column keeps its numbers.
 */
export function spreadsheetSafe(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/** Turns each row object into the CSV's cells, in the columns' order, each safe to open in a spreadsheet. */
class RowsToCells extends Transform {
  constructor(private readonly columns: readonly CsvColumn[]) {
    super({ objectMode: true });
  }
  _transform(row: Row, _encoding: BufferEncoding, done: TransformCallback): void {
    done(
      null,
      this.columns.map((column) => spreadsheetSafe(column.text(row))),
    );
  }
}

/** A CSV download's status and headers, set at its first row. */
const downloadHeaders = (res: Response, filename: string) =>
  res
    .status(200)
    .type('text/csv; charset=utf-8')
    .set('Content-Disposition', `attachment; filename="${filename}"`)
    .set('Cache-Control', 'no-store');

/**
 * Streams every row of a query as a CSV download: a server-side cursor read in batches, through
 * csv-stringify, to the socket, with backpressure all the way, so memory stays bounded at any size.
 * Nothing is written before the first row arrives, so a database error still becomes an error page.
 * Resolves when the download is over and its statement has stopped (see streamStatement for errors
 * and clients that leave half-way).
 */
export async function streamCsv(
  pool: StreamReader,
  query: NativeQuery,
  res: Response,
  {
    filename,
    columns,
    rest,
  }: {
    filename: string;
    columns: readonly CsvColumn[];
    /** The statement of the rows after the query's, read in the same snapshot (see StreamPlan.rest). */
    rest?: NativeQuery;
  },
): Promise<void> {
  const cursor = (q: NativeQuery) => new QueryStream(q.text, q.values, { batchSize: BATCH_ROWS });
  await streamStatement(pool, res, {
    statement: () => cursor(query),
    rest: rest && (() => cursor(rest)),
    drainOnStop: false,
    respond: () => {
      downloadHeaders(res, filename);
      // The byte order mark tells spreadsheet programs the file is UTF-8 (Arabic names stay readable).
      return [new RowsToCells(columns), stringify({ header: true, columns: columns.map((c) => c.label), bom: true })];
    },
  });
}

/** The byte order mark before the first bytes of a CSV written by PostgreSQL. */
class WithBom extends Transform {
  private started = false;
  _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (!this.started) {
      this.started = true;
      this.push('\uFEFF');
    }
    done(null, chunk);
  }
  _flush(done: TransformCallback): void {
    if (!this.started) this.push('\uFEFF');
    done();
  }
}

/**
 * A CSV download written by PostgreSQL: the COPY `head` (with the header line), then, when the head
 * wrote `headRows` rows (all it may), the COPY `rest`, both in one snapshot (see StreamPlan.rest),
 * straight to the socket with backpressure. Resolves when the
 * download is over and its statements have stopped.
 */
export async function streamCopyCsv(
  pool: StreamReader,
  res: Response,
  { filename, head, rest, headRows }: { filename: string; head: string; rest: string; headRows: number },
): Promise<void> {
  await streamStatement(pool, res, {
    statement: () => copyTo(head),
    // A head of fewer rows held the whole list: nothing to read again past it.
    rest: (first) => (first.rowCount < headRows ? undefined : copyTo(rest)),
    drainOnStop: true,
    respond: () => {
      downloadHeaders(res, filename);
      return [new WithBom()];
    },
  });
}
