// The answer's pieces and how they are sent: the same bytes and Content-Length whatever their sizes;
// past 64 KB piece by piece on a corked response, never joined (see sendJsonText).
import http from 'node:http';
import zlib from 'node:zlib';
import compression from 'compression';
import type { AddressInfo } from 'node:net';
import { answerPieces, bytesQuery, sendJsonText, rowsAsBytes, type Piece } from '../src/api/v2/send-json';
import { testApp, type TestApp } from './support/app';

/** Serves `pieces` once through sendJsonText and reads the answer: its headers, its body and how it was written. */
async function served(
  pieces: Piece[],
  { gzip = false } = {},
): Promise<{ type?: string; length?: string; chunked: boolean; body: Buffer; writes: number; uncorkedWrites: number }> {
  let writes = 0;
  let uncorkedWrites = 0;
  const compress = compression({ threshold: 0 });
  const server = http.createServer((req, res) => {
    const write = res.write.bind(res);
    res.write = ((...args: Parameters<typeof res.write>) => {
      writes += 1;
      if (!res.writableCorked) uncorkedWrites += 1;
      return write(...args);
    }) as typeof res.write;
    if (gzip) compress(req as never, res as never, () => sendJsonText(res, pieces));
    else sendJsonText(res, pieces);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      http
        .get({ port, host: '127.0.0.1', path: '/', headers: gzip ? { 'accept-encoding': 'gzip' } : {} }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              type: res.headers['content-type'],
              length: res.headers['content-length'],
              chunked: res.headers['transfer-encoding'] === 'chunked',
              body: gzip ? zlib.gunzipSync(Buffer.concat(chunks)) : Buffer.concat(chunks),
              writes,
              uncorkedWrites,
            }),
          );
        })
        .on('error', reject);
    });
  } finally {
    server.close();
  }
}

describe('answerPieces', () => {
  it('puts a streamed operation’s rows in an array, separated by commas', () => {
    expect(answerPieces(true, []).join('')).toBe('[]');
    expect(answerPieces(true, ['{"a" : 1}']).join('')).toBe('[{"a" : 1}]');
    expect(answerPieces(true, ['1', '2', '3']).join('')).toBe('[1,2,3]');
  });

  it('puts a page’s entries between its head and tail, separated as json_agg does', () => {
    expect(answerPieces(false, ['[{"data" : [', '], "total" : 0}]']).join('')).toBe('[{"data" : [], "total" : 0}]');
    expect(answerPieces(false, ['[{"data" : [', '{"x" : 1}', '{"x" : 2}', '], "total" : 2}]']).join('')).toBe(
      '[{"data" : [{"x" : 1}, {"x" : 2}], "total" : 2}]',
    );
  });

  it('refuses a page without its head and tail', () => {
    expect(() => answerPieces(false, ['[{"data" : ['])).toThrow(/head and tail/);
  });
});

describe('sendJsonText', () => {
  it('sends a small answer as one write with its Content-Length in bytes', async () => {
    const pieces = ['[', '{"name" : "Zoë Ångström"}', ']'];
    const answer = await served(pieces);
    expect(answer.type).toBe('application/json; charset=utf-8');
    expect(answer.body.toString('utf8')).toBe(pieces.join(''));
    expect(answer.length).toBe(String(Buffer.byteLength(pieces.join(''))));
    expect(answer.chunked).toBe(false);
    expect(answer.writes).toBe(0); // end() alone
  });

  it('sends a large answer piece by piece on a corked response, byte for byte, with multibyte characters', async () => {
    const entry = (i: number) => `{"rider_id" : "${i}", "name" : "€${'x'.repeat(i % 7)}€", "pad" : "${'y'.repeat(2000 + (i % 13))}"}`;
    const rows = Array.from({ length: 150 }, (_, i) => entry(i));
    const pieces = answerPieces(false, ['[{"current_page" : 1, "data" : [', ...rows, '], "total" : 150}]']);
    const text = pieces.join('');
    const answer = await served(pieces);
    expect(answer.body.equals(Buffer.from(text, 'utf8'))).toBe(true);
    expect(answer.length).toBe(String(Buffer.byteLength(text)));
    expect(answer.chunked).toBe(false);
    // About 300 KB: each piece written as it is, none while the response is uncorked.
    expect(answer.writes).toBe(pieces.length);
    expect(answer.uncorkedWrites).toBe(0);
  });

  it('sends a piece larger than 64 KB whole, between the pieces around it', async () => {
    const big = `"${'é'.repeat(70000)}"`; // 140 KB in UTF-8
    const pieces = answerPieces(true, ['"before"', big, '"after"']);
    const answer = await served(pieces);
    expect(answer.body.toString('utf8')).toBe(pieces.join(''));
    expect(answer.length).toBe(String(Buffer.byteLength(pieces.join(''))));
    expect(JSON.parse(answer.body.toString('utf8'))).toEqual(['before', 'é'.repeat(70000), 'after']);
  });

  it('sends rows read as bytes like their text, small or large, mixed with text', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => `{"i" : ${i}, "name" : "Zoë €${'ß'.repeat(i * 7)}"}`);
    const text = answerPieces(true, rows).join('');
    for (const count of [3, 120]) {
      const pieces = answerPieces(
        true,
        rows.slice(0, count).map((row) => Buffer.from(row)),
      );
      const expected = Buffer.from(answerPieces(true, rows.slice(0, count)).join(''));
      const answer = await served(pieces);
      expect(answer.body.equals(expected)).toBe(true);
      expect(answer.length).toBe(String(expected.length));
    }
    expect(JSON.parse(text)).toHaveLength(120);
  });

  it('sends a large answer through the compression layer whole (gzip waits for drain between writes)', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `{"i" : ${i}, "pad" : "${'z'.repeat(3000)}"}`);
    const pieces = answerPieces(true, rows);
    const answer = await served(pieces, { gzip: true });
    expect(answer.body.toString('utf8')).toBe(pieces.join(''));
    expect(answer.length).toBeUndefined(); // compressed: the length of the JSON no longer applies
  });
});

describe('rowsAsBytes', () => {
  let db: TestApp;
  beforeAll(() => {
    db = testApp('fixture');
  });
  afterAll(() => db.close());

  it('reads text and json columns as the UTF-8 bytes of their text', async () => {
    // ~1.6 MB of rows of uneven sizes with multibyte characters, read over many reads of the socket,
    // written into many blocks, one row larger than a block.
    const sql = `SELECT CASE WHEN g = 750 THEN repeat('ж', 50000) -- 100 KB: a row larger than a block
                             WHEN g % 2 = 0 THEN json_build_object('g', g, 's', repeat('é€', g % 997))::text
                             ELSE repeat('x', g % 5) || '😀' || g::text END AS t,
                        json_build_object('g', g, 'w', repeat('ü', g % 401)) AS j
                   FROM generate_series(1, 1500) AS g`;
    const client = await db.pool.connect();
    try {
      const asText = (await client.query<[string, object]>({ text: sql, rowMode: 'array', types: { getTypeParser: () => String } })).rows;
      const asBytes = (await client.query<[Buffer, Buffer]>({ text: sql, ...rowsAsBytes() })).rows;
      expect(asBytes).toHaveLength(1500);
      asBytes.forEach((row, i) => {
        expect(typeof row[0]).not.toBe('string');
        expect(typeof row[1]).not.toBe('string');
        expect(row[0].toString('utf8')).toBe(asText[i][0]);
        expect(row[1].toString('utf8')).toBe(asText[i][1]);
      });
    } finally {
      client.release();
    }
  });

  it('bytesQuery: a named statement with its values, whose rows arrive as bytes (the options it inherits survive pg copying it)', async () => {
    const client = await db.pool.connect();
    try {
      for (const word of ['été', 'x']) {
        const { rows } = await client.query<[Buffer]>(
          bytesQuery('send_json_bytes', 'SELECT $1::text || g FROM generate_series(1, 3) AS g', [word]),
        );
        expect(rows.map(([bytes]) => [Buffer.isBuffer(bytes), bytes.toString('utf8')])).toEqual(
          [1, 2, 3].map((g) => [true, `${word}${g}`]),
        );
      }
    } finally {
      client.release();
    }
  });

  it('keeps each statement its own rows when statements on several connections arrive interleaved (shared blocks)', async () => {
    // Four statements at once, each ~200 KB of rows unique to it: their rows land in the same blocks.
    const sql = (k: number) => `SELECT ${k} || ':' || g || ':' || repeat(chr(945 + ${k}), g % 300) FROM generate_series(1, 1500) AS g`;
    const clients = await Promise.all([0, 1, 2, 3].map(() => db.pool.connect()));
    try {
      const answers = await Promise.all(clients.map((client, k) => client.query<[Buffer]>({ text: sql(k), ...rowsAsBytes() })));
      answers.forEach(({ rows }, k) => {
        expect(rows).toHaveLength(1500);
        rows.forEach(([bytes], i) =>
          expect(bytes.toString('utf8')).toBe(`${k}:${i + 1}:${String.fromCharCode(945 + k).repeat((i + 1) % 300)}`),
        );
      });
    } finally {
      clients.forEach((client) => client.release());
    }
  });
});
