// npm run -s db:functions: writes db/functions/ (one file per function, the triggers' file and the
// folder's README) from the database the service would use (DATABASE_URL, or the embedded server),
// migrated first; a file of a function that no longer exists goes. See src/db/functions-sql.ts.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../config';
import { openDatabase } from '../db/bootstrap';
import { FUNCTIONS_DIR, functionsSql } from '../db/functions-sql';
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
      const { files, functions } = await functionsSql(client);
      const dir = path.join(projectRoot, FUNCTIONS_DIR);
      fs.mkdirSync(dir, { recursive: true });
      for (const old of fs.readdirSync(dir)) if (!files.has(old)) fs.rmSync(path.join(dir, old));
      for (const [file, text] of files) fs.writeFileSync(path.join(dir, file), text);
      log(`${FUNCTIONS_DIR}: ${functions.length} functions in ${files.size} files written`);
    } finally {
      await client.end();
    }
  } finally {
    await database.embedded?.stop();
  }
}

runCommand(main);
