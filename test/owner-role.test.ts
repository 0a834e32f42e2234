import fs from 'node:fs';
import path from 'node:path';
import { withClient } from '../bench/dataset';
import { migrateDatabase } from '../src/db/migrate';
import { databaseUrl } from './support/databases';

// The roles of docs/OPERATIONS.md ("Database roles"), made as it says: an owner that is no superuser
// migrates a new database and loads it, and the service's role then has what db/roles/grants.sql gives.
jest.setTimeout(120000);

const run = process.env.TEST_RUN_ID;
const owner = `rider_equipment_owner_t${run}`;
const app = `rider_equipment_app_t${run}`;
const database = `rider_equipment_test_roles_${run}`;
const admin = (sql: string) => withClient(process.env.TEST_ADMIN_URL!, (client) => client.query(sql));
const as = (role: string, password: string) => {
  const url = new URL(databaseUrl(process.env.TEST_ADMIN_URL!, database));
  url.username = role;
  url.password = password;
  return url.toString();
};

beforeAll(async () => {
  await admin(`CREATE ROLE ${owner} LOGIN PASSWORD 'owner-pass'`);
  await admin(`CREATE ROLE ${app} LOGIN PASSWORD 'app-pass'`);
  await admin(`CREATE DATABASE ${database} OWNER ${owner}`);
});
afterAll(async () => {
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin(`REVOKE SET ON PARAMETER kept.applying FROM ${owner}`);
  await admin(`DROP ROLE IF EXISTS ${owner}`);
  await admin(`DROP ROLE IF EXISTS ${app}`);
});

describe('the owner and the service’s role, as docs/OPERATIONS.md makes them', () => {
  it('needs the parameter grant the docs give, then migrates as the owner and grants the service its part', async () => {
    // Without it, PostgreSQL refuses kept_apply()'s SET kept.applying to a role that is no superuser.
    await expect(migrateDatabase(as(owner, 'owner-pass'), { appRole: app })).rejects.toThrow(
      /permission denied to set parameter "kept.applying"/,
    );
    await admin(`GRANT SET ON PARAMETER kept.applying TO ${owner}`);
    const logs: string[] = [];
    const applied = await migrateDatabase(as(owner, 'owner-pass'), { appRole: app, log: (m) => logs.push(m) });
    expect(applied.length).toBeGreaterThan(20);
    expect(logs).toEqual([`Granted ${app} what db/roles/grants.sql says`]);
    // Loaded as the owner, as its systems write it: the kept data from the change log.
    await withClient(as(owner, 'owner-pass'), async (client) => {
      await client.query(fs.readFileSync(path.join(__dirname, 'fixtures/fixture.sql'), 'utf8'));
    });
    // The service's role reads, applies the kept data through kept_apply(), and changes nothing else.
    await withClient(as(app, 'app-pass'), async (client) => {
      expect((await client.query('SELECT kept_apply(100000) AS taken')).rows[0].taken).toBeGreaterThan(0);
      expect((await client.query('SELECT count(*)::int AS n FROM kept_changes')).rows[0].n).toBe(0);
      expect((await client.query('SELECT riders FROM kept_company_riders WHERE company_id = 1')).rows[0].riders).toBe(3);
      await expect(client.query("UPDATE riders SET name = 'x' WHERE id = 101")).rejects.toThrow(/permission denied/);
    });
  });
});
