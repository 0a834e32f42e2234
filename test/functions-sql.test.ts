import fs from 'node:fs';
import path from 'node:path';
import { FUNCTIONS_DIR, INDEX_FILE, TRIGGERS_FILE, fileBlocks, functionsSql } from '../src/db/functions-sql';
import { testApp, type TestApp } from './support/app';

// db/functions/ is the current kept SQL in one place, a file per function: it must say what a freshly
// migrated database holds. After a migration that writes a function or a trigger: `npm run -s db:functions`.

let t: TestApp;
beforeAll(() => {
  t = testApp('fixture');
});
afterAll(() => t.close());

const firstLine = (s: string) => s.split('\n').find((l) => l.startsWith('CREATE')) ?? '';
const dir = path.join(__dirname, '..', FUNCTIONS_DIR);
const read = (file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
/** A function's file before its first block: the head every file of the folder has. */
const head = (s: string) => s.slice(0, s.indexOf('-- ── '));

describe(FUNCTIONS_DIR, () => {
  it('holds every function and trigger of a migrated database, as it is', async () => {
    const { files, functions } = await functionsSql(t.pool);
    expect(functions.length).toBeGreaterThan(30);
    expect(fs.readdirSync(dir).sort()).toEqual([...files.keys()].sort());
    // Each file holds its own functions, under its head.
    for (const file of new Set(functions.map((f) => f.file))) {
      const keys = functions.filter((f) => f.file === file).map((f) => f.key);
      expect([file, head(read(file)), [...fileBlocks(read(file)).keys()].sort()]).toEqual([file, head(files.get(file)!), keys.sort()]);
    }
    const stale = functions.filter((f) => {
      const block = fileBlocks(read(f.file)).get(f.key) ?? '';
      // A SQL-standard body is deparsed by each server version its own way: its first line only.
      return f.standard ? firstLine(block) !== firstLine(f.statement) : block !== f.statement.trim();
    });
    expect(stale.map((f) => f.key)).toEqual([]);
    expect(read(TRIGGERS_FILE)).toBe(files.get(TRIGGERS_FILE));
    expect(read(INDEX_FILE)).toBe(files.get(INDEX_FILE));
  });

  it('keeps every file under 400 lines, where a reader can hold it', () => {
    const long = fs.readdirSync(dir).filter((file) => read(file).split('\n').length - 1 > 400);
    expect(long).toEqual([]);
  });

  it('reads each block back by its function (the check can fail)', () => {
    const blocks = fileBlocks('-- head\n-- ── public.a(x integer) ──\nCREATE A;\n\n-- ── public.b() ──\nCREATE B;\n');
    expect([...blocks.entries()]).toEqual([
      ['public.a(x integer)', 'CREATE A;'],
      ['public.b()', 'CREATE B;'],
    ]);
  });
});
