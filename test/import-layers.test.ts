// The code's layers (docs/ARCHITECTURE.md, "Layers"): no import runs back up (the lint rule in
// eslint.config.mjs, which `npm test` runs), no module imports itself round a circle, no file is too long.
import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = path.join(__dirname, '..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** Each module of src/ and db/ and the modules it imports (type-only imports included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of [...sources(path.join(root, 'src')), ...sources(path.join(root, 'db'))]) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .filter(({ fileName }) => fileName.startsWith('.'))
      .map(({ fileName }) => path.resolve(path.dirname(file), fileName))
      .flatMap((target) => [`${target}.ts`, path.join(target, 'index.ts')].filter((candidate) => fs.existsSync(candidate)).slice(0, 1));
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected parts of more than one module (Tarjan): each is a circle of imports. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      part.push(path.relative(root, w));
    } while (w !== v);
    if (part.length > 1) found.push(part);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

it('has no circle of imports in src/ or db/', () => {
  const graph = importGraph();
  expect(graph.size).toBeGreaterThan(100);
  expect(circles(graph)).toEqual([]);
});

it('keeps every file of the house under 400 lines, where a reader can hold it', () => {
  // Code, templates, styles, SQL and tests alike; a migration keeps its parts in a folder of its own name.
  const kinds = /\.(ts|js|mjs|ejs|css|sql)$/;
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return files(full);
      return kinds.test(entry.name) ? [full] : [];
    });
  const all = ['src', 'db', 'bench', 'scripts', 'test', 'views', 'public'].flatMap((dir) => files(path.join(root, dir)));
  expect(all.length).toBeGreaterThan(300);
  const long = all
    .map((file) => [path.relative(root, file), fs.readFileSync(file, 'utf8').split('\n').length - 1] as const)
    .filter(([, lines]) => lines > 400);
  expect(long).toEqual([]);
});

it('finds a circle when there is one', () => {
  const a = path.join(root, 'a.ts');
  const b = path.join(root, 'b.ts');
  expect(
    circles(
      new Map([
        [a, [b]],
        [b, [a]],
      ]),
    ),
  ).toEqual([['b.ts', 'a.ts']]);
});

describe('the lint rule of the layers', () => {
  const eslint = new ESLint({ cwd: root });
  const restricted = async (filePath: string, code: string) =>
    (await eslint.lintText(code, { filePath: path.join(root, filePath) }))[0].messages.filter((m) => m.ruleId === 'no-restricted-imports')
      .length;

  it.each([
    ['src/http/errors.ts', "import '../db/pool';"],
    ['src/db/pool.ts', "import '../queries/keyset';"],
    ['src/wire/shape.ts', "import '../queries/assignments';"],
    ['src/filters/apply.ts', "import '../wire/shapes';"],
    ['src/html/render.ts', "import '../api/v2/router';"],
    ['src/queries/keyset.ts', "import '../app';"],
    ['db/seeds/demo.ts', "import '../../src/queries/keyset';"],
    ['src/runtime/v8.ts', "import '../http/errors';"],
    ['src/config.ts', "import './runtime/malloc';"],
  ])('refuses an import that runs back up: %s %s', async (file, code) => {
    expect(await restricted(file, code)).toBe(1);
  });

  it.each([
    ['src/queries/keyset.ts', "import '../wire/sql-fragments';"],
    ['src/api/v2/router.ts', "import '../../auth/bearer';"],
    ['src/app.ts', "import './db/pool';"],
    ['src/server.ts', "import './app';"],
    ['src/db/embedded.ts', "import '../runtime/malloc';"],
  ])('allows an import down the layers: %s %s', async (file, code) => {
    expect(await restricted(file, code)).toBe(0);
  });
});
