import pg from 'pg';
import { issueDemoCredentials } from '../src/auth/demo-credentials';
import { authenticate } from '../src/auth/supervisors';
import { sha256 } from '../src/auth/tokens';
import { migrateDatabase } from '../src/db/migrate';
import { databaseUrl, testDatabases } from './support/databases';

// The embedded demo's sign-in and API token, which `npm start` issues anew at each start and prints.
jest.setTimeout(60000);

const name = `${testDatabases().demo}_credentials`;
let admin: pg.Client;
let client: pg.Client;
let url: string;

beforeAll(async () => {
  admin = new pg.Client(process.env.TEST_ADMIN_URL);
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  url = databaseUrl(process.env.TEST_ADMIN_URL!, name);
  await migrateDatabase(url);
  client = new pg.Client(url);
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
});

const demoTokens = async () =>
  (
    await client.query<{ token_sha256: Buffer; company_id: string | null }>(
      "SELECT token_sha256, company_id FROM access.api_tokens WHERE name = 'embedded-demo'",
    )
  ).rows;

describe('the demo credentials', () => {
  it('are a token for every 3PL and the sign-in of supervisor demo, both replaced at each issue', async () => {
    const first = await issueDemoCredentials(url);
    expect(first.token).toMatch(/^rev2_[A-Za-z0-9_-]{43}$/);
    expect(first.supervisor.username).toBe('demo');
    expect(await demoTokens()).toEqual([{ token_sha256: sha256(first.token), company_id: null }]);
    expect(await authenticate(client, 'demo', first.supervisor.password)).toMatchObject({ username: 'demo', companyId: null });

    const second = await issueDemoCredentials(url);
    expect(second.token).not.toBe(first.token);
    expect(second.supervisor.password).not.toBe(first.supervisor.password);
    expect(await demoTokens()).toEqual([{ token_sha256: sha256(second.token), company_id: null }]);
    expect(await authenticate(client, 'demo', first.supervisor.password)).toBeUndefined();
    expect(await authenticate(client, 'demo', second.supervisor.password)).toMatchObject({ username: 'demo' });
    expect(Number((await client.query("SELECT count(*) AS n FROM access.supervisors WHERE username = 'demo'")).rows[0].n)).toBe(1);
  });
});
