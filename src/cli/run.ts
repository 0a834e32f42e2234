import { parseArgs, type ParseArgsConfig } from 'node:util';
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

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The command line of a command whose usage is `usage`: `--help` (or `-h`) prints it and exits 0; an
 * option it does not know is an error that names it, followed by the usage.
 */
export function commandLine<O extends Options>(usage: string, options: O) {
  const config = { allowPositionals: true, options } as const;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs({ ...config, options: { ...options, help: { type: 'boolean', short: 'h' } } }) as typeof parsed;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${usage}`);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return parsed;
}

/** The error of a command line whose command is not one of `known`: names what was given, then the usage. */
export function unknownCommand(given: string | undefined, usage: string): Error {
  return new Error(`${given === undefined ? 'No command given' : `Unknown command '${given}'`}.\n${usage}`);
}
