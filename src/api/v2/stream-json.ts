import { Transform, pipeline, type Readable, type TransformCallback } from 'node:stream';
import type { Response } from 'express';
import { escapeLiteral } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Pool } from '../../db/pool';
import type { NativeQuery } from '../../db/knex';

const NEWLINE = 0x0a;
const COMMA = 0x2c;

/**
 * Joins COPY's lines, one JSON text each, into one JSON array: every line end becomes a comma, and the
 * last byte is held back so the final comma can become the closing bracket. Bytes are never decoded.
 */
class JsonLinesToArray extends Transform {
  private started = false;
  private held: number | undefined;

  _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (chunk.length === 0) return done();
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) chunk[i] = COMMA;
    if (!this.started) {
      this.started = true;
      this.push('[');
    } else if (this.held !== undefined) {
      this.push(Buffer.of(this.held));
    }
    this.held = chunk[chunk.length - 1];
    done(null, chunk.subarray(0, chunk.length - 1));
  }

  _flush(done: TransformCallback): void {
    if (!this.started) return done(null, '[]');
    if (this.held !== COMMA) return done(new Error('COPY output did not end with a line end'));
    done(null, ']');
  }
}

function literal(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return escapeLiteral(value);
  throw new TypeError(`cannot inline a parameter of type ${typeof value}`);
}

/** COPY takes no bind parameters, so validated values are written into the SQL as quoted literals. */
export function inlineParameters(query: NativeQuery): string {
  return query.text.replace(/\$(\d+)/g, (_match, n: string) => literal(query.values[Number(n) - 1]));
}

/**
 * COPY in CSV form with a delimiter and quote byte that JSON text never holds (JSON escapes every
 * control character), so each line is the row's JSON text exactly as PostgreSQL wrote it.
 */
export function copyJsonLines(query: NativeQuery): string {
  return `COPY (${inlineParameters(query)}) TO STDOUT WITH (FORMAT csv, DELIMITER E'\\x01', QUOTE E'\\x02')`;
}

class ClientGone extends Error {
  constructor() {
    super('client closed the connection before the first byte');
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

/**
 * Streams a query whose rows each hold one JSON text (column 0) as a JSON array, straight from
 * PostgreSQL's COPY output to the socket, with backpressure. Until the first bytes arrive nothing is
 * written, so a database error still becomes a proper error response. If the client goes away, the
 * statement is cancelled and its connection is discarded rather than returned half-used.
 */
export async function streamJsonArray(pool: Pool, query: NativeQuery, res: Response): Promise<void> {
  const client = await pool.connect();
  const rows = client.query(copyTo(copyJsonLines(query)));
  rows.on('error', () => undefined); // reported through firstData() or pipeline()

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
    await firstData(rows, res);
  } catch (error) {
    rows.destroy();
    release(error as Error);
    if (error instanceof ClientGone) return;
    throw error;
  }

  res.status(200).type('application/json');
  pipeline(rows, new JsonLinesToArray(), res, (error) => release(error ?? undefined));
}
