import fs from 'node:fs';
import pg from 'pg';
import type { EmbeddedServer } from '../../src/db/embedded';
import { testDatabases } from './databases';

export default async function globalTeardown(): Promise<void> {
  const embedded = (globalThis as Record<string, unknown>).__embedded as { server: EmbeddedServer; dir: string } | undefined;
  if (embedded) {
    await embedded.server.stop();
    fs.rmSync(embedded.dir, { recursive: true, force: true });
    return;
  }
  // On a shared server, leave nothing behind.
  const admin = new pg.Client(process.env.TEST_ADMIN_URL);
  await admin.connect();
  try {
    for (const name of Object.values(testDatabases())) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
