// Every command line answers --help with its usage (exit 0), and an unknown option with its name and the usage (exit 1).
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.join(__dirname, '..');
// A database that cannot be reached: neither answer may need one.
const run = (cli: string, arg: string) =>
  spawnSync(process.execPath, ['-r', './scripts/ts-register.js', `src/cli/${cli}.ts`, arg], {
    cwd: root,
    encoding: 'utf8',
    timeout: 20000,
    env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
  });

describe.each([
  ['token', 'npm run token -- create --name NAME'],
  ['supervisor', 'npm run supervisor -- create --username NAME'],
  ['db', 'npm run db:seed -- [--riders N] [--seed S]'],
])('npm run %s', (cli, line) => {
  it.each([['--help'], ['-h']])('%s prints the usage and exits 0, touching no database', (flag) => {
    const result = run(cli, flag);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(line);
    expect(result.stderr).toBe('');
  });

  it('names an unknown command, then the usage, and exits 1', () => {
    const result = run(cli, 'bogus');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Unknown command 'bogus'.");
    expect(result.stderr).toContain(line);
  });

  it('names an unknown option, then the usage, and exits 1', () => {
    const result = run(cli, '--bogus');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Unknown option '--bogus'");
    expect(result.stderr).toContain(line);
  });
});
