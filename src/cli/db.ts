// npm run db:migrate | npm run db:seed -- [--riders N] [--seed S]
// Works on DATABASE_URL, or on the embedded server when it is not set.
import pg from 'pg';
import { loadConfig } from '../config';
import { alignKeptSettings, openDatabase } from '../db/bootstrap';
import { commandLine, runCommand, unknownCommand } from './run';
import { migrateDatabase } from '../db/migrate';
import { DEFAULT_DEMO, seedDemo } from '../../db/seeds/demo';

const usage = `usage:
  npm run db:migrate
  npm run db:seed -- [--riders N] [--seed S]`;

function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`--${name} must be a whole number of at least 1`);
  return Number(raw);
}

async function main(): Promise<void> {
  const { positionals, values } = commandLine(usage, { riders: { type: 'string' }, seed: { type: 'string' } } as const);
  const command = positionals[0];
  if (command !== 'migrate' && command !== 'seed') throw unknownCommand(command, usage);

  const config = loadConfig();
  const log = (message: string) => console.log(message);
  const database = await openDatabase(config, log, { demo: false });
  try {
    const applied = await migrateDatabase(database.url, { log });
    log(applied.length ? `Applied migrations: ${applied.join(', ')}` : 'The schema is up to date.');
    // Who migrates owns the tables: the kept data is written for this service's settings now.
    await alignKeptSettings(database.url, config, log, true);
    if (command === 'seed') {
      const options = {
        riders: positiveInteger('riders', values.riders, DEFAULT_DEMO.riders),
        seed: positiveInteger('seed', values.seed, DEFAULT_DEMO.seed),
        log,
      };
      const client = new pg.Client(database.url);
      await client.connect();
      try {
        const { rows } = await client.query('SELECT EXISTS (SELECT 1 FROM riders) AS seeded');
        if (rows[0].seeded) {
          // Reseeding means a different dataset; make the user say so by emptying the tables first.
          log('The database already holds data. To load another demo size, empty it first:');
          log('  TRUNCATE riders, countries, companies, patrollers, app_users, product_categories, products, questions CASCADE;');
          process.exitCode = 1;
          return;
        }
        const started = Date.now();
        const counts = await seedDemo(client, options);
        log(
          `Loaded in ${((Date.now() - started) / 1000).toFixed(1)} s: ${Object.entries(counts)
            .map(([t, n]) => `${t} ${n}`)
            .join(', ')}`,
        );
      } finally {
        await client.end();
      }
    }
  } finally {
    await database.embedded?.stop();
  }
}

runCommand(main);
