import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { grantsFor } from '../src/db/migrate';
import { TEST_APP_ROLE, useDatabase } from './support/databases';

// db/roles/grants.sql against the catalogue of a database the migrations built: every relation of the
// service's own schema is decided there (granted, or named as not granted), and the role the tests'
// service runs as holds what the file grants, on every table of the company's data.
const file = fs.readFileSync(path.join(__dirname, '../db/roles/grants.sql'), 'utf8');
let db: pg.Client;
beforeAll(async () => {
  db = new pg.Client(await useDatabase('fixture'));
  await db.connect();
});
afterAll(() => db.end());

describe('db/roles/grants.sql', () => {
  it('names every table and sequence of the schema access', async () => {
    const { rows } = await db.query<{ name: string }>(
      `SELECT 'access.' || c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'access' AND c.relkind IN ('r', 'p', 'v', 'm', 'S') ORDER BY 1`,
    );
    expect(rows.length).toBeGreaterThan(0);
    const named = new Set(file.match(/\baccess\.[a-z_0-9]+/g));
    expect(rows.map((r) => r.name).filter((name) => !named.has(name))).toEqual([]);
    // ...and nothing that is not there: a name left over from a table dropped since.
    expect([...named].filter((name) => !rows.some((r) => r.name === name))).toEqual([]);
  });

  it('gives the tests’ service role SELECT on every table of the company’s and the kept data, and no write', async () => {
    const { rows } = await db.query<{ name: string; reads: boolean; writes: boolean }>(
      `SELECT c.relname AS name, has_table_privilege($1, c.oid, 'SELECT') AS reads,
              has_table_privilege($1, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE') AS writes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`,
      [TEST_APP_ROLE],
    );
    expect(rows.filter((r) => !r.reads || r.writes)).toEqual([]);
  });

  it('is given to another role by name alone', () => {
    const other = grantsFor('some_other_role');
    expect(other).not.toMatch(/rider_equipment_app/);
    expect(other.match(/TO some_other_role;/g)?.length).toBe(file.match(/TO rider_equipment_app;/g)?.length);
    expect(() => grantsFor('x; DROP TABLE riders')).toThrow(/not a plain role name/);
  });
});
