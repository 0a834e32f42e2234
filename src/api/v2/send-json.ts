import type { ServerResponse } from 'node:http';

/** A piece of an answer: JSON text, or its UTF-8 bytes (see ROWS_AS_BYTES). */
export type Piece = string | Buffer;

/**
 * Query options that read each row's one column as its UTF-8 bytes (rowMode 'array'). pg makes a
 * string of each value as its row arrives; a large answer's rows arrive over many reads of the
 * socket while other requests run, and kept as strings until the last one came, a list page's
 * ~250 KB lived through V8's young-generation collections, which copied and promoted them (under
 * load, three quarters of the young generation survived each one). Encoded at once into Node.js's
 * pooled memory, outside the JavaScript heap, each string is garbage as soon as it is made.
 */
export const ROWS_AS_BYTES = {
  rowMode: 'array',
  types: { getTypeParser: () => (text: string) => Buffer.from(text) },
} as const;

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
  elements.forEach((element, i) => pieces.push(i ? separator : '', element));
  pieces.push(close);
  return pieces;
}

/** Sent as one write up to this size; larger answers go as Buffers of about this size. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Sends JSON text given in pieces, with its Content-Length. Past CHUNK_BYTES it is never made into
 * one string or one Buffer: on Linux every allocation past about 128 KB maps fresh pages (a V8
 * string in its own chunk, a Buffer through malloc's mmap), and the page faults of a ~250 KB list
 * page cost more than reading it from PostgreSQL. The pieces go out as ~64 KB Buffers.
 */
export function sendJsonText(res: ServerResponse, pieces: Piece[]): void {
  const sizes = pieces.map((piece) => (typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length));
  const total = sizes.reduce((sum, size) => sum + size, 0);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', total);
  if (total <= CHUNK_BYTES) {
    res.end(pieces.every((piece) => typeof piece === 'string') ? pieces.join('') : Buffer.concat(pieces.map(bytesOf), total));
    return;
  }
  // Not corked: a compressing wrapper (compression) waits for 'drain' between its writes, which a
  // corked socket would never emit.
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  pieces.forEach((piece, i) => {
    if (used + sizes[i] > CHUNK_BYTES && used > 0) {
      res.write(chunk.subarray(0, used));
      chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      used = 0;
    }
    if (sizes[i] > CHUNK_BYTES)
      res.write(piece); // one piece past a chunk (a rider with very many items)
    else used += typeof piece === 'string' ? chunk.write(piece, used) : piece.copy(chunk, used);
  });
  res.end(used > 0 ? chunk.subarray(0, used) : undefined);
}

const bytesOf = (piece: Piece): Buffer => (typeof piece === 'string' ? Buffer.from(piece) : piece);
