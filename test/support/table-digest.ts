// A digest of a whole database's contents: every table's rows, read with COPY TO in a fixed order and
// hashed with SHA-256, table by table. Two databases with equal digests hold the same data.
import crypto from 'node:crypto';
import pg, { type ClientBase } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { seedDemo, type DemoOptions } from '../../db/seeds/demo';
import { migrateDatabase } from '../../src/db/migrate';
import { databaseUrl } from './databases';

/** Bookkeeping of the migration tool: when each migration ran, which is not data. */
const NOT_DATA = ['public.knex_migrations', 'public.knex_migrations_lock'];

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

async function copyDigest(client: ClientBase, sql: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  const stream = client.query(copyTo(`COPY (${sql}) TO STDOUT`));
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * SHA-256 of each table's full contents (schema-qualified name -> hex digest), plus the state of every
 * sequence under the key "sequences". Rows are ordered by their whole text form, so the order they
 * were written in does not matter; the session's time zone and styles are fixed, so neither does the
 * server's configuration.
 */
export async function tableDigests(client: ClientBase): Promise<Record<string, string>> {
  await client.query(`SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 1`);
  const { rows: tables } = await client.query<{ schema: string; name: string }>(
    `SELECT n.nspname AS schema, c.relname AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
      ORDER BY n.nspname COLLATE "C", c.relname COLLATE "C"`,
  );
  const digests: Record<string, string> = {};
  for (const { schema, name } of tables) {
    const key = `${schema}.${name}`;
    if (NOT_DATA.includes(key)) continue;
    const table = `${quoteIdent(schema)}.${quoteIdent(name)}`;
    digests[key] = await copyDigest(client, `SELECT * FROM ${table} t ORDER BY t::text COLLATE "C"`);
  }
  digests.sequences = await copyDigest(
    client,
    `SELECT schemaname, sequencename, last_value FROM pg_sequences ORDER BY schemaname COLLATE "C", sequencename COLLATE "C"`,
  );
  return digests;
}

/** Creates database `name` afresh on the admin URL's server, migrates it, seeds it with `options` and digests it. */
export async function seededDigests(adminUrl: string, name: string, options: DemoOptions): Promise<Record<string, string>> {
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    try {
      const url = databaseUrl(adminUrl, name);
      await migrateDatabase(url);
      const client = new pg.Client(url);
      await client.connect();
      try {
        await seedDemo(client, options);
        return await tableDigests(client);
      } finally {
        await client.end();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}
