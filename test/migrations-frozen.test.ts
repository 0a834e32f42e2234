import fs from 'node:fs';
import path from 'node:path';
import { migrationNames } from '../src/db/migrate';

// History is frozen: a migration holds its own SQL, so editing one never changes what another gives a
// fresh database. None imports another migration (it may import types and libraries).

const DIR = path.join(__dirname, '..', 'db', 'migrations');

/** The relative imports of a migration's source. */
const relativeImports = (source: string) => [...source.matchAll(/^import[^;]*from\s+'(\.[^']*)'/gm)].map((m) => m[1]);

describe('the migrations', () => {
  it('import no other migration', () => {
    const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.ts'));
    expect(files.map((f) => f.replace(/\.ts$/, ''))).toEqual(expect.arrayContaining([...migrationNames]));
    const importing = files.flatMap((f) => relativeImports(fs.readFileSync(path.join(DIR, f), 'utf8')).map((i) => `${f} imports ${i}`));
    expect(importing).toEqual([]);
  });

  it('see an import of another migration (the check can fail)', () => {
    expect(relativeImports(`import type { Knex } from 'knex';\nimport { keptApply } from './20261127_018_kept_change_log';\n`)).toEqual([
      './20261127_018_kept_change_log',
    ]);
  });
});
