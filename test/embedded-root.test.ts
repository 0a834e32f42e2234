import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { packagedBinaries, SHARED_ROOT, startEmbedded } from '../src/db/embedded';

const asRoot = process.getuid?.() === 0;

if (!asRoot) {
  console.warn(
    'embedded-root.test.ts: skipped, because the tests do not run as root: the case is root running from a folder closed to the postgres user.',
  );
}

(asRoot ? describe : describe.skip)('the embedded server started by root from a folder only root may enter', () => {
  it('keeps the binaries and the data where the postgres user reaches them, and serves', async () => {
    const closed = fs.mkdtempSync(path.join(os.tmpdir(), 'root-only-'));
    expect(fs.statSync(closed).mode & 0o777).toBe(0o700);
    // The binaries as `npm install` puts them inside such a clone.
    const installed = path.join(closed, 'node_modules-native');
    fs.cpSync((await packagedBinaries()).root, installed, { recursive: true, verbatimSymlinks: true });
    const server = await startEmbedded(path.join(closed, '.data', 'postgres'), { binaries: installed });
    try {
      expect(server.dataDir.startsWith(`${SHARED_ROOT}/data/`)).toBe(true);
      expect(server.binDir).toMatch(new RegExp(`^${SHARED_ROOT}/postgresql-[^/]+/bin$`));
      const client = new pg.Client(server.url('postgres'));
      await client.connect();
      try {
        const { rows } = await client.query("SELECT current_setting('data_directory') AS dir, current_user AS who");
        expect(rows[0]).toEqual({ dir: server.dataDir, who: 'postgres' });
      } finally {
        await client.end();
      }
      // A second start of the same folder finds the same data.
      const again = await startEmbedded(path.join(closed, '.data', 'postgres'), { binaries: installed });
      expect(again.dataDir).toBe(server.dataDir);
      expect(again.port).toBe(server.port); // the running server is shared
    } finally {
      await server.stop();
      fs.rmSync(server.dataDir, { recursive: true, force: true });
      fs.rmSync(`${server.dataDir}.password`, { force: true });
      fs.rmSync(closed, { recursive: true, force: true });
    }
  });
});
