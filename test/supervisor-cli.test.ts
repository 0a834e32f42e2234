// npm run supervisor on a real database, as an operator runs it (no build first): create, list, disable.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { useDatabase } from './support/databases';

const root = path.join(__dirname, '..');
let url: string;
beforeAll(async () => {
  url = await useDatabase('fixture');
});
afterAll(async () => {
  const client = new pg.Client(url);
  await client.connect();
  await client.query(`DELETE FROM access.supervisors WHERE username LIKE $1`, [`${prefix}%`]);
  await client.end();
});

const prefix = `cli-${process.pid}-`;
const supervisor = (args: string[], password = 'a-long-password-1') =>
  spawnSync(process.execPath, ['-r', './scripts/ts-register.js', 'src/cli/supervisor.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30000,
    env: { ...process.env, DATABASE_URL: url, SUPERVISOR_PASSWORD: password },
  });
/** The list's line of `username`, split into its columns (two spaces or more apart). */
const lineOf = (out: string, username: string) =>
  out
    .split('\n')
    .find((line) => line.startsWith(`${username} `))
    ?.split(/ {2,}/);

it('creates supervisors, lists each with its 3PL and state, and disables one', () => {
  const made = supervisor(['create', '--username', `${prefix}lead`]);
  expect(made.stderr).toBe('');
  expect(made.stdout).toBe(`Supervisor "${prefix}lead" can sign in at /admin.\n`);
  expect(supervisor(['create', '--username', `${prefix}swift`, '--3pl', 'Swift & Co']).status).toBe(0);
  const refused = supervisor(['create', '--username', `${prefix}nope`, '--3pl', 'Nope Ltd']);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toBe('There is no 3PL company named "Nope Ltd"\n');
  expect(supervisor(['create', '--username', `${prefix}short`], 'short').stderr).toBe('A password needs at least 12 characters\n');
  expect(supervisor(['disable', '--username', `${prefix}swift`]).status).toBe(0);

  const listed = supervisor(['list']);
  expect(listed.status).toBe(0);
  expect(listed.stdout.split('\n')[0].split(/ {2,}/)).toEqual(['username', '3PL', 'created (UTC)', 'state', 'rows given', 'notes']);
  expect(lineOf(listed.stdout, `${prefix}lead`)).toEqual([
    `${prefix}lead`,
    'all',
    expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d$/),
    'active',
    '0',
    '0',
  ]);
  expect(lineOf(listed.stdout, `${prefix}swift`)).toEqual([
    `${prefix}swift`,
    'Swift & Co',
    expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d$/),
    expect.stringMatching(/^disabled \d{4}-\d\d-\d\d \d\d:\d\d$/),
    '0',
    '0',
  ]);
  expect(lineOf(listed.stdout, `${prefix}nope`)).toBeUndefined();
  // Active ones first.
  const lines = listed.stdout.split('\n');
  expect(lines.findIndex((l) => l.startsWith(`${prefix}lead `))).toBeLessThan(lines.findIndex((l) => l.startsWith(`${prefix}swift `)));
});
