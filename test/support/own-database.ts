import pg from 'pg';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { migrateDatabase } from '../../src/db/migrate';
import { createPool, type Pool } from '../../src/db/pool';
import { databaseUrl } from './databases';

/**
 * A database of one suite's own, migrated and loaded with `sql` (statements run in turn), and the app
 * over it (authentication off), for data the shared fixture must not hold: made before the suite's
 * tests, dropped after them. Read `pool` and `app` inside tests.
 */
export function useOwnDatabase(name: string, sql: readonly string[]): { pool: Pool; app: ReturnType<typeof createApp> } {
  const own = {} as { pool: Pool; app: ReturnType<typeof createApp> };
  const onAdmin = async (statement: string) => {
    const client = new pg.Client(process.env.TEST_ADMIN_URL);
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  beforeAll(async () => {
    await onAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await onAdmin(`CREATE DATABASE "${name}"`);
    const url = databaseUrl(process.env.TEST_ADMIN_URL!, name);
    await migrateDatabase(url);
    const data = new pg.Client(url); // not knex.raw, which would read the ? in a URL as a binding
    await data.connect();
    try {
      for (const statement of sql) await data.query(statement);
    } finally {
      await data.end();
    }
    const config = loadConfig({ NODE_ENV: 'test', AUTH: 'off' });
    own.pool = createPool(url, config, () => undefined);
    own.app = createApp({ pool: own.pool, config, log: () => undefined });
  });
  afterAll(async () => {
    await own.pool?.end();
    await onAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
  return own;
}
