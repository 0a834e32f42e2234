import fs from 'node:fs';
import pg from 'pg';
import { testDatabases } from './databases';
import type { Embedded } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const embedded = (globalThis as Record<string, unknown>).__embedded as Embedded | undefined;
  if (embedded?.temporary) {
    await embedded.server.stop();
    fs.rmSync(embedded.temporary, { recursive: true, force: true });
    return;
  }
  // On a shared server, and on the kept embedded one, the run's databases go; the templates stay.
  try {
    const admin = new pg.Client(process.env.TEST_ADMIN_URL);
    await admin.connect();
    try {
      for (const name of Object.values(testDatabases())) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  } finally {
    if (embedded) {
      await embedded.server.stop();
      fs.rmSync(embedded.lock!, { force: true });
    }
  }
}
