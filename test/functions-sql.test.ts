import fs from 'node:fs';
import path from 'node:path';
import { FUNCTIONS_FILE, fileBlocks, functionsSql } from '../src/db/functions-sql';
import { testApp, type TestApp } from './support/app';

// db/functions.sql is the current kept SQL in one place: it must say what a freshly migrated database
// holds. After a migration that writes a function or a trigger: `npm run -s db:functions`.

let t: TestApp;
beforeAll(() => {
  t = testApp('fixture');
});
afterAll(() => t.close());

const firstLine = (s: string) => s.split('\n').find((l) => l.startsWith('CREATE')) ?? '';

describe(FUNCTIONS_FILE, () => {
  it('holds every function and trigger of a migrated database, as it is', async () => {
    const file = fs.readFileSync(path.join(__dirname, '..', FUNCTIONS_FILE), 'utf8');
    const { text, functions } = await functionsSql(t.pool);
    const written = fileBlocks(file);
    expect(functions.length).toBeGreaterThan(30);
    expect([...written.keys()].sort()).toEqual(functions.map((f) => f.key).sort());
    const stale = functions.filter((f) => {
      const block = written.get(f.key) ?? '';
      // A SQL-standard body is deparsed by each server version its own way: its first line only.
      return f.standard ? firstLine(block) !== firstLine(f.statement) : block !== f.statement.trim();
    });
    expect(stale.map((f) => f.key)).toEqual([]);
    const triggers = (s: string) => s.slice(0, s.indexOf('-- Functions, by name'));
    expect(triggers(file)).toBe(triggers(text));
  });

  it('reads each block back by its function (the check can fail)', () => {
    const blocks = fileBlocks('-- head\n-- ── public.a(x integer) ──\nCREATE A;\n\n-- ── public.b() ──\nCREATE B;\n');
    expect([...blocks.entries()]).toEqual([
      ['public.a(x integer)', 'CREATE A;'],
      ['public.b()', 'CREATE B;'],
    ]);
  });
});
