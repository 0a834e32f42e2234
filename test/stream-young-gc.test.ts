import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { JsonLinesToArray, YOUNG_GC_EVERY_BYTES } from '../src/api/v2/stream-json';

// A long stream asks V8 for a minor collection every YOUNG_GC_EVERY_BYTES when the process exposes
// gc (npm start runs with --expose-gc), and the bytes it passes on are unchanged either way.

const line = Buffer.from(`${JSON.stringify({ ID: 1, pad: 'x'.repeat(1000) })}\n`);
const chunk = Buffer.concat(Array.from({ length: 64 }, () => line)); // about 64 KB, whole lines

async function streamed(chunks: number): Promise<Buffer> {
  const out: Buffer[] = [];
  const transform = new JsonLinesToArray();
  transform.on('data', (piece: Buffer) => out.push(Buffer.from(piece)));
  await pipeline(Readable.from(Array.from({ length: chunks }, () => Buffer.from(chunk))), transform);
  return Buffer.concat(out);
}

describe('JsonLinesToArray and the young generation', () => {
  const exposed = (globalThis as { gc?: unknown }).gc;
  afterEach(() => {
    (globalThis as { gc?: unknown }).gc = exposed;
  });

  it('asks for a minor collection once per YOUNG_GC_EVERY_BYTES streamed', async () => {
    const calls: unknown[] = [];
    (globalThis as { gc?: unknown }).gc = (options: unknown) => calls.push(options);
    const chunks = Math.ceil((2.5 * YOUNG_GC_EVERY_BYTES) / chunk.length);
    const body = await streamed(chunks);
    expect(calls).toEqual([{ type: 'minor' }, { type: 'minor' }]);
    const parsed = JSON.parse(body.toString('utf8')) as unknown[];
    expect(parsed).toHaveLength(chunks * 64);
  });

  it('streams the same bytes when gc is not exposed', async () => {
    (globalThis as { gc?: unknown }).gc = undefined;
    const without = await streamed(200);
    (globalThis as { gc?: unknown }).gc = () => undefined;
    const withGc = await streamed(200);
    expect(withGc.length).toBe(without.length);
    expect(withGc.equals(without)).toBe(true);
  });
});
