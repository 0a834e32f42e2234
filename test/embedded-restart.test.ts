import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alive, packagedBinaries, startEmbedded } from '../src/db/embedded';
import { eventually } from './support/wait';

// An operator restarts the embedded PostgreSQL by hand (pg_ctl restart on its data folder): the
// postmaster the service started is gone and another, with a new pid, runs there. The service still
// owns the folder, so its stop ends that one too.
jest.setTimeout(60000);

const postmasterPid = (dataDir: string) => Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

/** The user the server runs as: as root, the `postgres` system user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

describe('the embedded server restarted by hand', () => {
  it('is stopped by stop(), though it is no longer the process that was started', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-equipment-restart-'));
    fs.chmodSync(dir, 0o755);
    const server = await startEmbedded(path.join(dir, 'pg'));
    let restarted: number | undefined;
    try {
      const started = postmasterPid(server.dataDir);
      // A second start on the folder shares the server, says it will not stop it, and does not.
      const lines: string[] = [];
      const shared = await startEmbedded(path.join(dir, 'pg'), { log: (line) => lines.push(line) });
      expect(lines).toEqual([
        `Sharing the embedded PostgreSQL of process ${process.pid} (pid ${started}); it keeps running when this process stops`,
      ]);
      await shared.stop();
      expect(alive(started)).toBe(true);

      const pgCtl = path.join(server.binDir ?? path.join((await packagedBinaries()).root, 'bin'), 'pg_ctl');
      const restart = spawnSync(
        pgCtl,
        ['-D', server.dataDir, '-w', '-t', '20', '-m', 'fast', '-l', path.join(server.dataDir, 'restart.log'), 'restart'],
        {
          ...serverUser(),
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: 30000,
        },
      );
      expect({ status: restart.status, output: `${restart.stdout}${restart.stderr}` }).toMatchObject({ status: 0 });
      restarted = postmasterPid(server.dataDir);
      expect(restarted).not.toBe(started);
      // The first postmaster has exited (reaped once the event loop runs again).
      await eventually(() => !alive(started), { ms: 5000, what: 'the started postmaster gone' });
      expect(alive(restarted)).toBe(true);

      const began = Date.now();
      await server.stop();
      expect(Date.now() - began).toBeLessThan(10000);
      expect(alive(restarted)).toBe(false);
      expect(fs.existsSync(path.join(server.dataDir, 'postmaster.pid'))).toBe(false);
      expect(fs.existsSync(`${server.dataDir}.owner`)).toBe(false); // the folder is released
    } finally {
      if (restarted && alive(restarted)) {
        process.kill(restarted, 'SIGINT');
        await eventually(() => !alive(restarted!), { ms: 10000, what: 'the restarted server gone' }).catch(() => undefined);
      }
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
