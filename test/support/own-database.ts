import { withClient } from '../../bench/dataset';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { migrateDatabase } from '../../src/db/migrate';
import { createPool, type Pool } from '../../src/db/pool';
import { TEST_APP_ROLE, appUrl, databaseUrl } from './databases';

/**
 * A database of one suite's own, migrated and loaded with `sql` (statements run in turn), and the app
 * over it (authentication off), for data the shared fixture must not hold: made before the suite's
 * tests, dropped after them. Read `pool` and `app` inside tests.
 */
export function useOwnDatabase(name: string, sql: readonly string[]): { pool: Pool; app: ReturnType<typeof createApp> } {
  const own = {} as { pool: Pool; app: ReturnType<typeof createApp> };
  const onAdmin = (statement: string) => withClient(process.env.TEST_ADMIN_URL!, (admin) => admin.query(statement));
  beforeAll(async () => {
    await onAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await onAdmin(`CREATE DATABASE "${name}"`);
    const url = databaseUrl(process.env.TEST_ADMIN_URL!, name);
    await migrateDatabase(url, { appRole: TEST_APP_ROLE });
    // pg, not knex.raw, which would read the ? in a URL as a binding.
    await withClient(url, async (data) => {
      for (const statement of sql) await data.query(statement);
      // Written as the data's own systems write it: the kept data comes from the change log.
      await data.query('SELECT kept_apply_all()');
    });
    const config = loadConfig({ NODE_ENV: 'test', AUTH: 'off' });
    own.pool = createPool(appUrl(url), config, () => undefined);
    own.app = createApp({ pool: own.pool, config, log: () => undefined });
  });
  afterAll(async () => {
    await own.pool?.end();
    await onAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
  return own;
}
