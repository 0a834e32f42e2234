// npm run supervisor -- create --username NAME [--3pl COMPANY]   (asks for the password, or reads SUPERVISOR_PASSWORD)
// npm run supervisor -- disable --username NAME
// npm run supervisor -- list
import readline from 'node:readline/promises';
import { commandLine, runCommand, unknownCommand, withDatabaseClient } from './run';
import { MIN_PASSWORD_LENGTH, createSupervisor, disableSupervisor, listSupervisors, type SupervisorListed } from '../auth/supervisors';

const usage = `usage:
  npm run supervisor -- create --username NAME [--3pl COMPANY]   (asks for the password, or reads SUPERVISOR_PASSWORD)
  npm run supervisor -- disable --username NAME
  npm run supervisor -- list`;

/** The supervisors as a table a terminal shows: one line each, columns padded to their widest cell. */
export function supervisorTable(rows: SupervisorListed[]): string {
  const head = ['username', '3PL', 'created (UTC)', 'state', 'rows given', 'notes'];
  const lines = rows.map((r) => [
    r.username,
    r.company ?? 'all',
    r.created,
    r.disabled ? `disabled ${r.disabled}` : 'active',
    String(r.given),
    String(r.notes),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  return [head, ...lines]
    .map((l) =>
      l
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function askPassword(): Promise<string> {
  if (process.env.SUPERVISOR_PASSWORD) return process.env.SUPERVISOR_PASSWORD;
  if (!process.stdin.isTTY) throw new Error('Set SUPERVISOR_PASSWORD, or run this in a terminal to be asked for it');
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  // Keep the typed password off the screen.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => undefined;
  process.stdout.write(`Password (at least ${MIN_PASSWORD_LENGTH} characters): `);
  const password = await rl.question('');
  rl.close();
  process.stdout.write('\n');
  return password;
}

async function main(): Promise<void> {
  const { positionals, values } = commandLine(usage, { username: { type: 'string' }, '3pl': { type: 'string' } } as const);
  const [command] = positionals;
  const username = values.username;
  if (!['create', 'disable', 'list'].includes(command)) throw unknownCommand(command, usage);
  if (command === 'list') {
    const rows = await withDatabaseClient(listSupervisors);
    console.log(rows.length ? supervisorTable(rows) : 'No supervisor yet: npm run supervisor -- create --username NAME');
    return;
  }
  if (!username) throw new Error(`${command} needs --username\n${usage}`);
  const password = command === 'create' ? await askPassword() : '';
  await withDatabaseClient(async (client) => {
    if (command === 'create') {
      await createSupervisor(client, { username, password, company: values['3pl'] });
      console.log(`Supervisor "${username}" can sign in at /admin${values['3pl'] ? `, seeing only 3PL "${values['3pl']}"` : ''}.`);
    } else if (await disableSupervisor(client, username)) {
      console.log(`Supervisor "${username}" is disabled; their sessions end at their next request.`);
    } else {
      console.log(`No active supervisor is named "${username}".`);
      process.exitCode = 1;
    }
  });
}

runCommand(main);
