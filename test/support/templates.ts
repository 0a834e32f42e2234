// Template databases: the fixture, the demo and the large demo, each migrated and loaded once and
// kept on the server between runs. A run's databases are copies of them (CREATE DATABASE ... TEMPLATE,
// a file copy), made when a test file first asks for one (test/support/databases.ts).
//
// A template's name carries a hash of everything that goes into it (the migrations and their runner,
// the seed, the fixture, this file), so a change to any of them builds new templates; templates of
// other hashes that no run has copied for a while are dropped. The global setup computes the hash once
// (TEST_TEMPLATE_HASH), so a file edited during a run does not change which templates its workers copy. A template is built under a temporary
// name and renamed when complete, under an advisory lock that concurrent runs wait on. Built, it
// accepts no connections: CREATE DATABASE ... TEMPLATE fails while anyone is connected to the source.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { seedDemo } from '../../db/seeds/demo';
import { migrateDatabase } from '../../src/db/migrate';
import { withClient } from '../../bench/dataset';
import { TEST_APP_ROLE } from './databases';

const root = path.join(__dirname, '../..');

export type TemplateKind = 'fixture' | 'demo' | 'large';
export const TEMPLATE_KINDS: readonly TemplateKind[] = ['fixture', 'demo', 'large'];

const PREFIX = 'rider_equipment_tmpl_';

/** Templates of another hash are dropped once no run has copied them for this long (a run may still use them). */
const STALE_MS = 60 * 60 * 1000;

/** What goes into each kind, after the migrations. */
const LOAD: Record<TemplateKind, (client: pg.Client) => Promise<unknown>> = {
  fixture: async (client) => {
    await client.query(fs.readFileSync(path.join(root, 'test/fixtures/fixture.sql'), 'utf8'));
    // The fixture is written as the data's own systems write: its kept data from the change log.
    await client.query('SELECT kept_apply_all()');
  },
  demo: (client) => seedDemo(client, { riders: 300, seed: 42 }),
  /** Large enough that one full stream runs for seconds: for clients that hang up mid-answer. */
  large: async (client) => {
    await seedDemo(client, { riders: 4000, seed: 7 });
    // Vacuumed now, so that autovacuum has nothing left to do on its copies while tests count their transactions.
    await client.query('VACUUM ANALYZE');
  },
};

/** The files whose contents make a template: a change to any of them means new templates. */
const INPUTS = ['db/migrations', 'db/roles', 'db/seeds', 'src/db/migrate.ts', 'test/fixtures/fixture.sql', 'test/support/templates.ts'];

function filesUnder(relative: string): string[] {
  const full = path.join(root, relative);
  if (!fs.statSync(full).isDirectory()) return [relative];
  return fs
    .readdirSync(full)
    .sort()
    .flatMap((entry) => filesUnder(path.join(relative, entry)));
}

/** SHA-256 (first 12 hex digits) over the inputs' paths and contents. */
export function templateHash(): string {
  const hash = crypto.createHash('sha256');
  for (const file of INPUTS.flatMap(filesUnder))
    hash
      .update(`${file}\0`)
      .update(fs.readFileSync(path.join(root, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 12);
}

export function templateName(kind: TemplateKind, hash: string): string {
  return `${PREFIX}${kind}_${hash}`;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function urlOf(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Runs `work` holding the session advisory lock named `name` on the maintenance database, where every
 * run takes it (advisory locks are per database); PostgreSQL frees it if this process dies.
 */
export async function withLock<T>(adminUrl: string, name: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  return withClient(adminUrl, async (admin) => {
    await admin.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [name]);
    return work(admin); // the lock ends with the session
  });
}

async function exists(admin: pg.Client, name: string): Promise<boolean> {
  return (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
}

/** Notes on the template when a run last copied it, read by dropStaleTemplates (a shared catalog: no connection to it). */
async function markUsed(admin: pg.Client, name: string): Promise<void> {
  await admin.query(`COMMENT ON DATABASE ${quote(name)} IS ${pg.escapeLiteral(`used ${new Date().toISOString()}`)}`);
}

/** Builds the template of `kind` unless it exists; concurrent runs wait for the one building it. */
export async function ensureTemplate(adminUrl: string, kind: TemplateKind, hash: string): Promise<string> {
  const name = templateName(kind, hash);
  await withLock(adminUrl, name, async (admin) => {
    if (await exists(admin, name)) return;
    // Under a name of its own until complete: a build cut short never passes for a template.
    const building = `${name}_building`;
    await admin.query(`DROP DATABASE IF EXISTS ${quote(building)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${quote(building)}`);
    const url = urlOf(adminUrl, building);
    await migrateDatabase(url, { appRole: TEST_APP_ROLE });
    await withClient(url, LOAD[kind]);
    await admin.query(`ALTER DATABASE ${quote(building)} RENAME TO ${quote(name)}`);
    await admin.query(`ALTER DATABASE ${quote(name)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    await markUsed(admin, name);
  });
  return name;
}

/**
 * Creates database `name` as a copy of the template of `kind` unless it exists (two test workers may
 * ask at once: the lock on `name` makes the second wait and find it). A template dropped meanwhile by
 * another run is built again.
 */
export async function copyOfTemplate(adminUrl: string, name: string, kind: TemplateKind, hash: string): Promise<void> {
  await withLock(adminUrl, name, async (admin) => {
    if (await exists(admin, name)) return;
    const template = templateName(kind, hash);
    const copy = () => admin.query(`CREATE DATABASE ${quote(name)} TEMPLATE ${quote(template)}`);
    try {
      await copy();
    } catch (error) {
      if ((error as { code?: string }).code !== '3D000') throw error; // invalid_catalog_name: no such template
      await ensureTemplate(adminUrl, kind, hash);
      await copy();
    }
    await markUsed(admin, template);
  });
}

/** Drops templates of other hashes (and builds cut short) that no run has copied for STALE_MS. */
export async function dropStaleTemplates(adminUrl: string, hash: string): Promise<string[]> {
  const { rows } = await withClient(adminUrl, (admin) =>
    admin.query<{ name: string; note: string | null }>(
      `SELECT datname AS name, shobj_description(oid, 'pg_database') AS note FROM pg_database WHERE datname LIKE $1`,
      [`${PREFIX}%`],
    ),
  );
  const current = new Set(TEMPLATE_KINDS.map((kind) => templateName(kind, hash)));
  const stale = rows.filter(({ name, note }) => {
    if (current.has(name)) return false;
    const used = Date.parse(/^used (.*)$/.exec(note ?? '')?.[1] ?? '');
    return !(Date.now() - used < STALE_MS); // never marked (a build cut short) counts as stale
  });
  const dropped: string[] = [];
  for (const { name } of stale) {
    // Under the template's lock, so that no run is copying or building it meanwhile.
    const gone = name.replace(/_building$/, '');
    await withLock(adminUrl, gone, async (admin) => {
      await admin.query(`ALTER DATABASE ${quote(name)} WITH IS_TEMPLATE false`).catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`);
      dropped.push(name);
    });
  }
  return dropped;
}
