import fs from 'node:fs';
import path from 'node:path';
import { testApp, type TestApp } from './support/app';

// docs/ARCHITECTURE.md's kept data map against the database's catalogue: every kept table and every view
// that defines one is on the map, everything the map names exists, and each row's test file exists. A
// kept table added by a migration and not put on the map fails here, and so does a row left behind.

const DOC = path.join(__dirname, '..', 'docs', 'ARCHITECTURE.md');

/** The map's rows: the identifiers of its "Kept table" and "Definition" cells, and its test files. */
function mapRows(): Array<{ kept: string[]; definitions: string[]; tests: string[] }> {
  const text = fs.readFileSync(DOC, 'utf8');
  const section = text.slice(text.indexOf('## The kept data map'), text.indexOf('\n## ', text.indexOf('## The kept data map') + 1));
  const codes = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Kept table') && !line.startsWith('|---'))
    .map((line) => {
      const cells = line.split(' | ');
      return { kept: codes(cells[0]), definitions: codes(cells[3]), tests: codes(cells[4]) };
    });
}

let t: TestApp;
beforeAll(() => {
  t = testApp('fixture');
});
afterAll(() => t.close());

describe('the kept data map (docs/ARCHITECTURE.md)', () => {
  it('names every kept table and every view that defines one, and only what exists', async () => {
    const rows = mapRows();
    expect(rows.length).toBeGreaterThan(10);
    const { rows: relations } = await t.pool.query<{ name: string; kind: string }>(
      `SELECT c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm')`,
    );
    const tables = new Set(relations.filter((r) => r.kind === 'r').map((r) => r.name));
    const views = new Set(relations.filter((r) => r.kind !== 'r').map((r) => r.name));
    const kept = new Set(rows.flatMap((row) => row.kept.map((name) => name.split('.')[0])));
    const definitions = new Set(rows.flatMap((row) => row.definitions));
    // The catalogue's kept tables and definitions: kept_*, the rider list's and the questioners' tables; every *_docs view.
    const keptInCatalogue = [...tables].filter((name) => /^kept_|^rider_list_|^patrol_check_questioners$/.test(name));
    const definedInCatalogue = [...views].filter((name) => name.endsWith('_docs') || name === 'rider_list_block_counts');
    expect(keptInCatalogue.filter((name) => !kept.has(name))).toEqual([]);
    expect(
      definedInCatalogue.filter(
        (name) =>
          !definitions.has(name) && ![...definitions].some((d) => d.includes('*') && new RegExp(`^${d.replace('*', '.*')}$`).test(name)),
      ),
    ).toEqual([]);
    // And the other way: every table and view the map names exists.
    expect([...kept].filter((name) => !tables.has(name))).toEqual([]);
    expect([...definitions].filter((name) => !name.includes('*') && !views.has(name))).toEqual([]);
  });

  it('gives each row the test that checks it, and that test exists', () => {
    for (const row of mapRows()) {
      expect({ row: row.kept[0], tests: row.tests.length > 0 }).toEqual({ row: row.kept[0], tests: true });
      for (const file of row.tests)
        expect({ file, exists: fs.existsSync(path.join(__dirname, '..', file)) }).toEqual({ file, exists: true });
    }
  });
});
