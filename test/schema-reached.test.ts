import fs from 'node:fs';
import path from 'node:path';
import { testApp, type TestApp } from './support/app';

// The schema holds only what runs: every function of the service's schemas is reached, from a trigger,
// from a view, default, index or check that uses it (the catalogue's dependencies), from the service, its
// templates, its SQL scripts or its docs (an operator's function, such as kept_apply_all()), or from the
// body of a function reached. A function left behind by a migration that replaced its caller fails here,
// and so does a trigger function whose trigger was dropped.

const ROOT = path.join(__dirname, '..');

function filesUnder(dir: string, ext: RegExp): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** The text of everything outside the database that may call a function by name. */
function callers(): string {
  const files = [
    ...filesUnder(path.join(ROOT, 'src'), /\.ts$/),
    ...filesUnder(path.join(ROOT, 'views'), /\.ejs$/),
    ...filesUnder(path.join(ROOT, 'docs'), /\.md$/),
    ...fs
      .readdirSync(path.join(ROOT, 'db'))
      .filter((f) => f.endsWith('.sql'))
      .map((f) => path.join(ROOT, 'db', f)),
  ];
  return files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

interface Fn {
  name: string;
  body: string;
  returnsTrigger: boolean;
  /** Triggers, views, defaults, indexes and checks that depend on it. */
  used: boolean;
}

let t: TestApp;
let functions: Fn[];
beforeAll(async () => {
  t = testApp('fixture');
  ({ rows: functions } = await t.pool.query<Fn>(
    `SELECT p.proname AS name, coalesce(p.prosrc, '') AS body, p.prorettype = 'trigger'::regtype AS "returnsTrigger",
            EXISTS (SELECT 1 FROM pg_depend d WHERE d.refclassid = 'pg_proc'::regclass AND d.refobjid = p.oid
                       AND d.classid <> 'pg_proc'::regclass AND d.deptype = 'n') AS used
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname IN ('public', 'access')
        AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.objid = p.oid AND e.deptype = 'e')`,
  ));
});
afterAll(() => t.close());

const named = (name: string, text: string) => new RegExp(`\\b${name}\\b`).test(text);

/** The functions reached from `outside` (see above), by name. */
function unreached(all: Fn[], outside: string): string[] {
  const reached = new Set(all.filter((f) => f.used || named(f.name, outside)).map((f) => f.name));
  for (let grew = true; grew;) {
    grew = false;
    for (const caller of all.filter((f) => reached.has(f.name)))
      for (const f of all)
        if (!reached.has(f.name) && named(f.name, caller.body)) {
          reached.add(f.name);
          grew = true;
        }
  }
  return all
    .filter((f) => !reached.has(f.name))
    .map((f) => f.name)
    .sort();
}

describe('the schema', () => {
  it('holds no function that nothing reaches', () => {
    expect(functions.length).toBeGreaterThan(30);
    expect(unreached(functions, callers())).toEqual([]);
  });

  it('counts a function reached only through what is reached', () => {
    const fn = (name: string, body = '', used = false): Fn => ({ name, body, returnsTrigger: false, used });
    const all = [
      fn('a_root', 'PERFORM b_called()'),
      fn('b_called', 'PERFORM c_deep()'),
      fn('c_deep'),
      fn('d_view', '', true),
      fn('e_left', 'PERFORM b_called()'),
    ];
    expect(unreached(all, 'SELECT a_root()')).toEqual(['e_left']);
    expect(unreached(all, 'SELECT e_left()')).toEqual(['a_root']);
  });

  it('holds no trigger function without its trigger', async () => {
    const triggerFunctions = functions.filter((f) => f.returnsTrigger);
    expect(triggerFunctions.length).toBeGreaterThan(5);
    const { rows } = await t.pool.query<{ name: string }>(
      `SELECT DISTINCT p.proname AS name FROM pg_trigger g JOIN pg_proc p ON p.oid = g.tgfoid WHERE NOT g.tgisinternal`,
    );
    const triggered = new Set(rows.map((r) => r.name));
    expect(triggerFunctions.filter((f) => !triggered.has(f.name)).map((f) => f.name)).toEqual([]);
  });
});
