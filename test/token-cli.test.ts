// npm run token on a real database: a token made by name is revoked by the same name, written as
// create writes it (--name) or as a word; two different names at once are refused.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { useDatabase } from './support/databases';

const root = path.join(__dirname, '..');
let url: string;
beforeAll(async () => {
  url = await useDatabase('fixture');
});

const token = (...args: string[]) =>
  spawnSync(process.execPath, ['-r', './scripts/ts-register.js', 'src/cli/token.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30000,
    env: { ...process.env, DATABASE_URL: url },
  });

async function revokedAt(name: string): Promise<Array<Date | null>> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM access.api_tokens WHERE name = $1', [name]);
    return rows.map((r) => r.revoked_at);
  } finally {
    await client.end();
  }
}

it.each([
  ['--name', (name: string) => ['revoke', '--name', name]],
  ['a word', (name: string) => ['revoke', name]],
])('revokes a token by its name given as %s', async (_how, revoke) => {
  const name = `cli-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const made = token('create', '--name', name);
  expect(made.status).toBe(0);
  expect(made.stdout).toContain(`"${name}"`);
  expect(await revokedAt(name)).toEqual([null]);

  const revoked = token(...revoke(name));
  expect(revoked.stderr).toBe('');
  expect(revoked.status).toBe(0);
  expect(revoked.stdout).toContain(`Revoked 1 token(s) named or numbered "${name}"`);
  expect(await revokedAt(name)).toEqual([expect.any(Date)]);

  // Revoked already: said so, exit 1.
  const again = token(...revoke(name));
  expect(again.status).toBe(1);
  expect(again.stdout).toContain(`No live token is named or numbered "${name}"`);
});

it('refuses two different names at once, revoking neither', async () => {
  const name = `cli-both-${process.pid}`;
  expect(token('create', '--name', name).status).toBe(0);
  const both = token('revoke', 'someone-else', '--name', name);
  expect(both.status).toBe(1);
  expect(both.stderr).toContain('revoke takes one token');
  expect(await revokedAt(name)).toEqual([null]);
});
