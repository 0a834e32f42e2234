import pg from 'pg';
import { loadConfig } from '../config';
import { openDatabase } from '../db/bootstrap';

/** Runs `work` with a client on DATABASE_URL, or on the embedded server (started and stopped around it). */
export async function withDatabaseClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const database = await openDatabase(loadConfig(), () => undefined, { demo: false });
  const client = new pg.Client(database.url);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
    await database.embedded?.stop();
  }
}

/** A command's main: its error message (not a stack) and exit status 1 on failure. */
export function runCommand(main: () => Promise<void>): void {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
