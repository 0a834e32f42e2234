import { readdirSync } from 'node:fs';
import path from 'node:path';
import { migrationNames } from '../src/db/migrate';

// Migrations are imported by src/db/migrate.ts, not found on disk (so they run the same from src/ and
// dist/): a file added to db/migrations/ and not listed there would never run. This holds the two equal.
describe('the migrations src/db/migrate.ts runs', () => {
  const files = readdirSync(path.join(__dirname, '..', 'db', 'migrations'))
    .filter((file) => /\.ts$/.test(file))
    .map((file) => file.replace(/\.ts$/, ''))
    .sort();

  it('are every file of db/migrations, in the order of their names', () => {
    expect(migrationNames).toEqual(files);
  });
});
