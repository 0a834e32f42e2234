import { Transform, type TransformCallback } from 'node:stream';
import type { Response } from 'express';
import { to as copyTo } from 'pg-copy-streams';
import { inlineParameters } from '../../db/copy';
import type { NativeQuery } from '../../db/knex';
import { streamStatement, type StreamReader } from '../../db/stream-query';

const NEWLINE = 0x0a;
const COMMA = 0x2c;

/** Bytes streamed between two collections of V8's young generation (see below). */
export const YOUNG_GC_EVERY_BYTES = 8 * 1024 * 1024;

/**
 * `gc` when the process runs with --expose-gc (`npm start` does), else nothing. Each chunk read from
 * PostgreSQL is a new Buffer whose memory is freed only when V8 collects its small wrapper; a stream
 * makes little other garbage, so without a nudge those buffers pile up between collections, tens of
 * MB for a full stream. A minor collection every 8 MB keeps that pile small, for little CPU (figures in
 * docs/MEMORY.md, "Memory of the Node.js process").
 */
const collectYoung = () => (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc?.({ type: 'minor' });

/**
 * Joins COPY's lines, one JSON text each, into one JSON array: every line end becomes a comma, and the
 * last byte is held back so the final comma can become the closing bracket. Bytes are never decoded.
 */
export class JsonLinesToArray extends Transform {
  private started = false;
  private held: number | undefined;
  private sinceCollection = 0;

  _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (chunk.length === 0) return done();
    this.sinceCollection += chunk.length;
    if (this.sinceCollection >= YOUNG_GC_EVERY_BYTES) {
      this.sinceCollection = 0;
      collectYoung();
    }
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

/**
 * COPY in CSV form with a delimiter and quote byte that JSON text never holds (JSON escapes every
 * control character), so each line is the row's JSON text exactly as PostgreSQL wrote it.
 */
export function copyJsonLines(query: NativeQuery): string {
  return `COPY (${inlineParameters(query)}) TO STDOUT WITH (FORMAT csv, DELIMITER E'\\x01', QUOTE E'\\x02')`;
}

/**
 * Streams a query whose rows each hold one JSON text (column 0) as a JSON array, straight from
 * PostgreSQL's COPY output to the socket, with backpressure. Resolves when the answer is over and
 * the statement has stopped (see streamStatement for errors and clients that leave).
 */
export function streamJsonArray(pool: StreamReader, query: NativeQuery, res: Response): Promise<void> {
  return streamStatement(pool, res, {
    statement: () => copyTo(copyJsonLines(query)),
    drainOnStop: true,
    respond: () => {
      res.status(200).type('application/json');
      return [new JsonLinesToArray()];
    },
  });
}
