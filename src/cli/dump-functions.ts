// npm run -s db:functions: writes db/functions.sql from the database the service would use (DATABASE_URL,
// or the embedded server), migrated first. See src/db/functions-sql.ts.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../config';
import { openDatabase } from '../db/bootstrap';
import { FUNCTIONS_FILE, functionsSql } from '../db/functions-sql';
import { migrateDatabase } from '../db/migrate';
import { projectRoot } from '../paths';
import { runCommand } from './run';

async function main(): Promise<void> {
  const log = (message: string) => console.log(message);
  const database = await openDatabase(loadConfig(), log, { demo: false });
  try {
    await migrateDatabase(database.url, { log });
    const client = new pg.Client(database.url);
    await client.connect();
    try {
      const { text, functions } = await functionsSql(client);
      fs.writeFileSync(path.join(projectRoot, FUNCTIONS_FILE), text);
      log(`${FUNCTIONS_FILE}: ${functions.length} functions written`);
    } finally {
      await client.end();
    }
  } finally {
    await database.embedded?.stop();
  }
}

runCommand(main);
