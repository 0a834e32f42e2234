// Starts (or reaches) a PostgreSQL once per run and prepares the databases the tests read:
// the hand-written fixture, and a generated demo large enough to stream many buffers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../../src/db/embedded';
import { migrateDatabase } from '../../src/db/migrate';
import { seedDemo } from '../../db/seeds/demo';
import { adminUrlFrom, databaseUrl, testDatabases } from './databases';

async function createDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(adminUrl, name);
  await migrateDatabase(url);
  return url;
}

async function withClient(url: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

export default async function globalSetup(): Promise<void> {
  let adminUrl: string;
  if (process.env.DATABASE_URL) {
    adminUrl = adminUrlFrom(process.env.DATABASE_URL);
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-equipment-test-'));
    fs.chmodSync(dir, 0o755);
    const server = await startEmbedded(path.join(dir, 'pg'));
    (globalThis as Record<string, unknown>).__embedded = { server, dir };
    adminUrl = server.url('postgres');
  }
  process.env.TEST_ADMIN_URL = adminUrl;

  const fixtureUrl = await createDatabase(adminUrl, testDatabases().fixture);
  const fixture = fs.readFileSync(path.join(__dirname, '../fixtures/fixture.sql'), 'utf8');
  await withClient(fixtureUrl, (client) => client.query(fixture));
  await withClient(adminUrl, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS "${testDatabases().attention}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${testDatabases().attention}" TEMPLATE "${testDatabases().fixture}"`);
    await admin.query(`DROP DATABASE IF EXISTS "${testDatabases().handling}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${testDatabases().handling}" TEMPLATE "${testDatabases().fixture}"`);
    await admin.query(`DROP DATABASE IF EXISTS "${testDatabases().listKeys}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${testDatabases().listKeys}" TEMPLATE "${testDatabases().fixture}"`);
  });

  const demoUrl = await createDatabase(adminUrl, testDatabases().demo);
  await withClient(demoUrl, (client) => seedDemo(client, { riders: 300, seed: 42 }));

  const largeUrl = await createDatabase(adminUrl, testDatabases().large);
  await withClient(largeUrl, async (client) => {
    await seedDemo(client, { riders: 4000, seed: 7 });
    // Vacuumed now, so that autovacuum has nothing left to do on it while the tests count its transactions.
    await client.query('VACUUM ANALYZE');
  });
  await withClient(adminUrl, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS "${testDatabases().largeCopy}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${testDatabases().largeCopy}" TEMPLATE "${testDatabases().large}"`);
  });
}
