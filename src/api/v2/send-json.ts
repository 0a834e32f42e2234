import type { ServerResponse } from 'node:http';
import type pg from 'pg';

/** A piece of an answer: JSON text, or its UTF-8 bytes (see rowsAsBytes). */
export type Piece = string | Buffer;

/** Rows' bytes are written one after another into blocks of this size (larger rows get their own). */
const BLOCK_BYTES = 64 * 1024;

/**
 * Query options that read each row's one column as its UTF-8 bytes (rowMode 'array'). pg makes a
 * string of each value as its row arrives; a large answer's rows arrive over many reads of the socket
 * while other requests run, and kept as strings until the last one came, a list page's ~250 KB lived
 * through V8's young-generation collections, which copied and promoted them (under load, three
 * quarters of the young generation survived each one). Written at once into blocks of memory outside
 * the JavaScript heap, each string is garbage as soon as it is made, and the rows are views onto the
 * blocks.
 *
 * The blocks are the process's, shared by every statement: a block is only ever appended to (no byte
 * of it is written twice), so rows of statements that arrive interleaved stay each their own, and a
 * block is freed once no row of it is left. One block of BLOCK_BYTES per statement, as before, was a
 * 64 KB allocation outside the heap for each small answer, which V8 counts towards its next collection.
 */
export function rowsAsBytes() {
  return AS_BYTES;
}

let block = Buffer.alloc(0);
let used = 0;

function toBytes(text: string): Buffer {
  const size = Buffer.byteLength(text);
  if (size > block.length - used) {
    block = Buffer.allocUnsafe(Math.max(BLOCK_BYTES, size));
    used = 0;
  }
  block.write(text, used);
  used += size;
  return block.subarray(used - size, used);
}

const AS_BYTES = { rowMode: 'array', types: { getTypeParser: () => toBytes } } as const;

/**
 * A named statement whose rows are read as bytes (rowsAsBytes), as a query config that holds only its
 * name, text and values and inherits the rest. pg copies every config it is given, property by
 * property with their descriptors; the fewer of its own, the less that copy costs (it is kept the same
 * way: the copy has the config's prototype).
 */
export function bytesQuery(name: string, text: string, values: unknown[]): pg.QueryArrayConfig {
  const query = Object.create(AS_BYTES) as pg.QueryArrayConfig;
  query.name = name;
  query.text = text;
  query.values = values;
  return query;
}

/**
 * The pieces of an answer read at once, in order, from its statement's rows (one JSON text each):
 * a streamed operation's rows are the elements of its array; a page's rows are the envelope up to
 * the `[` of its data, the data's elements, and the rest of the envelope (see wirePage).
 */
export function answerPieces(stream: boolean, rows: Piece[]): Piece[] {
  if (stream) return joined('[', rows, ',', ']');
  if (rows.length < 2) throw new Error(`a page's statement gave ${rows.length} rows; its head and tail were expected`);
  return joined(rows[0], rows.slice(1, -1), ', ', rows[rows.length - 1]);
}

function joined(open: Piece, elements: Piece[], separator: string, close: Piece): Piece[] {
  const pieces = [open];
  elements.forEach((element, i) => (i ? pieces.push(separator, element) : pieces.push(element)));
  pieces.push(close);
  return pieces;
}

/** Sent as one string or Buffer up to this size; larger answers go piece by piece. */
const WHOLE_BYTES = 64 * 1024;

/**
 * Sends JSON text given in pieces, with its Content-Length. Past WHOLE_BYTES it is never made into
 * one string or one Buffer: on Linux every allocation past about 128 KB maps fresh pages (a V8
 * string in its own chunk, a Buffer through malloc's mmap), and the page faults of a ~250 KB list
 * page cost more than reading it from PostgreSQL. The pieces are written corked, so they leave in
 * one system call (or pass to the compressing wrapper as they are).
 */
export function sendJsonText(res: ServerResponse, pieces: Piece[]): void {
  const total = pieces.reduce((sum, piece) => sum + (typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length), 0);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', total);
  if (total <= WHOLE_BYTES) {
    res.end(Buffer.concat(pieces.map(bytesOf), total));
    return;
  }
  res.cork();
  for (const piece of pieces) res.write(piece);
  res.end();
  res.uncork();
}

const bytesOf = (piece: Piece): Buffer => (typeof piece === 'string' ? Buffer.from(piece) : piece);
