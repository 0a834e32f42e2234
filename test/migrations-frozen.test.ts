import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { migrationNames } from '../src/db/migrate';

// History is frozen: a migration holds its own SQL, so editing one never changes what another gives a
// fresh database. None imports another migration, nor a part of another (it may import types and
// libraries). A long migration keeps its parts in a folder of its own name beside it
// (db/migrations/<name>/): the migration imports from that folder, and the folder's files import only
// from each other.

const DIR = path.join(__dirname, '..', 'db', 'migrations');

/** The relative imports of a source (imports, re-exports, require() and import() alike). */
const relativeImports = (source: string) =>
  ts
    .preProcessFile(source, true, true)
    .importedFiles.map((file) => file.fileName)
    .filter((name) => name.startsWith('.'));

/**
 * The imports that leave a migration's own folder, in `files` (paths relative to db/migrations/, with
 * their source): a migration `<name>.ts` may import from `./<name>/` only, a file under `<name>/` from
 * `<name>/` only.
 */
const strayImports = (files: Array<[file: string, source: string]>) =>
  files.flatMap(([file, source]) => {
    const own = path.join(DIR, file.split('/')[0].replace(/\.ts$/, '')) + path.sep;
    return relativeImports(source)
      .filter((name) => !path.resolve(path.dirname(path.join(DIR, file)), name).startsWith(own))
      .map((name) => `${file} imports ${name}`);
  });

/** Every .ts file of db/migrations/ and of its folders, relative to it. */
const sources = (dir = ''): string[] =>
  fs
    .readdirSync(path.join(DIR, dir), { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? sources(path.posix.join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? [path.posix.join(dir, entry.name)]
          : [],
    );

describe('the migrations', () => {
  it('import no other migration, and their folders nothing outside themselves', () => {
    const files = sources();
    expect(files.filter((f) => !f.includes('/')).map((f) => f.replace(/\.ts$/, ''))).toEqual(expect.arrayContaining([...migrationNames]));
    expect(strayImports(files.map((f) => [f, fs.readFileSync(path.join(DIR, f), 'utf8')]))).toEqual([]);
  });

  it('keep folders only for their own parts, each named after its migration', () => {
    const folders = fs
      .readdirSync(DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((name) => !migrationNames.includes(name))).toEqual([]);
  });

  it('see an import of another migration or of its folder (the check can fail)', () => {
    expect(
      strayImports([
        ['20261129_029_kept_deltas.ts', `import type { Knex } from 'knex';\nimport { keptApply } from './20261127_018_kept_change_log';\n`],
        ['20261129_030_moved_rider_returns.ts', `export { APPLY } from './20261127_018_kept_change_log/apply';\n`],
        ['20261129_029_kept_deltas/apply.ts', `import { LOG_TRIGGERS } from '../20261127_018_kept_change_log/triggers';\n`],
        ['20261129_029_kept_deltas/log.ts', `import { FUNCTIONS } from '../20261129_029_kept_deltas';\n`],
        ['20261129_029_kept_deltas/deltas.ts', `const other = require('../../src/db/migrate');\n`],
        ['20261129_029_kept_deltas.ts', `import { LOG_FUNCTIONS } from './20261129_029_kept_deltas_old/log';\n`],
      ]),
    ).toEqual([
      '20261129_029_kept_deltas.ts imports ./20261127_018_kept_change_log',
      '20261129_030_moved_rider_returns.ts imports ./20261127_018_kept_change_log/apply',
      '20261129_029_kept_deltas/apply.ts imports ../20261127_018_kept_change_log/triggers',
      '20261129_029_kept_deltas/log.ts imports ../20261129_029_kept_deltas',
      '20261129_029_kept_deltas/deltas.ts imports ../../src/db/migrate',
      '20261129_029_kept_deltas.ts imports ./20261129_029_kept_deltas_old/log',
    ]);
  });

  it('let a migration import its own folder, and a folder itself and libraries', () => {
    expect(
      strayImports([
        [
          '20261129_029_kept_deltas.ts',
          `import type { Knex } from 'knex';\nimport { LOG_FUNCTIONS } from './20261129_029_kept_deltas/log';\n`,
        ],
        ['20261129_029_kept_deltas/apply.ts', `import { guard } from './log';\nimport type { Knex } from 'knex';\n`],
      ]),
    ).toEqual([]);
  });
});
