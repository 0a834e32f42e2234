import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbedded, type EmbeddedServer } from '../src/db/embedded';
import { KeptApplier } from '../src/db/kept-applier';
import { migrateDatabase } from '../src/db/migrate';
import { withClient } from '../bench/dataset';
import { eventually } from './support/wait';

// The kept data's applier (src/db/kept-applier.ts) across a PostgreSQL crash-restart: a throwaway server
// of its own, whose applier's backend this test kills, as the out-of-memory killer or a crash would.
// PostgreSQL then ends every session ("Connection terminated unexpectedly", no SQLSTATE) and refuses
// connections while it recovers. The applier says so in one line, with no stack, and carries on.
jest.setTimeout(90000);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-equipment-applier-restart-'));
let server: EmbeddedServer;
let url: string;
beforeAll(async () => {
  fs.chmodSync(dir, 0o755);
  server = await startEmbedded(path.join(dir, 'pg'));
  url = server.url('postgres');
  await migrateDatabase(url);
  await query(`INSERT INTO countries (id, code, name) VALUES (1, 'AE', 'United Arab Emirates');
               INSERT INTO companies (id, name) VALUES (1, 'Swift & Co')`);
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One statement on a connection of its own (the server may have restarted since the last). */
const query = <T extends pg.QueryResultRow>(sql: string): Promise<T[]> =>
  withClient(url, async (client) => (await client.query<T>(sql)).rows);

const waiting = async () => Number((await query<{ n: string }>('SELECT count(*) AS n FROM kept_changes'))[0].n);

describe('the kept data applier', () => {
  it('meets a PostgreSQL crash-restart with one line and no stack, and applies again once it is back', async () => {
    const logs: string[] = [];
    const applier = new KeptApplier(url, { intervalMs: 50, log: (m) => logs.push(m) });
    applier.start();
    try {
      await query(`INSERT INTO riders (id, name, company_id, country_id) VALUES (1, 'First Rider', 1, 1)`);
      await eventually(async () => (await waiting()) === 0, { ms: 10000, what: 'the first change applied' });

      // The applier's backend killed: the postmaster ends every session and recovers.
      const [{ pid }] = await query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name LIKE '%kept applier'`);
      process.kill(pid, 'SIGKILL');
      await eventually(async () => applier.status.lastError !== undefined, { ms: 10000, what: 'the applier meeting the restart' });

      // Back: a change made after the restart is applied without a restart of the service.
      const added = () => query(`INSERT INTO riders (id, name, company_id, country_id) VALUES (2, 'Second Rider', 1, 1)`);
      await eventually(
        () =>
          added().then(
            () => true,
            () => false,
          ),
        {
          ms: 30000,
          every: 200,
          what: 'the server back',
        },
      );
      await eventually(async () => (await waiting()) === 0 && applier.status.lastError === undefined, {
        ms: 30000,
        every: 100,
        what: 'the change after the restart applied',
      });
      expect((await query<{ riders: number }>('SELECT riders FROM kept_company_riders WHERE company_id = 1'))[0]?.riders).toBe(2);

      // What it said: that a batch waits and is tried again, never a stack.
      expect(logs.length).toBeGreaterThan(0);
      for (const line of logs) {
        expect(line).toMatch(/^kept data: a batch could not be applied now \(.+\); it stays in kept_changes and is tried again$/);
        expect(line).not.toMatch(/\n\s+at /);
      }
    } finally {
      await applier.stop();
    }
  });
});
