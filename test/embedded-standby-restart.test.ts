// Embedded standbys across restarts of the service: the primary comes back on another port, and the
// standby must follow it; a standby that stops must not have its slot keep WAL on the primary for good.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import request from 'supertest';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { EMBEDDED_DATABASE, openDatabase, type Database } from '../src/db/bootstrap';
import { startEmbedded, startEmbeddedStandby, type EmbeddedServer } from '../src/db/embedded';
import { createPool, type Pool } from '../src/db/pool';
import { addressOf, ReadRouter } from '../src/db/replicas';
import { eventually } from './support/wait';

jest.setTimeout(120000);

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-equipment-standby-'));
  fs.chmodSync(dir, 0o755);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function stopDatabases(database: Database | undefined): Promise<void> {
  for (const replica of database?.embeddedReplicas ?? []) await replica.stop();
  await database?.embedded?.stop();
}

/** Holds `port` on loopback, so that a server started meanwhile cannot take it. */
function hold(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('EMBEDDED_REPLICAS=1 across a restart', () => {
  it('finds the standby replicating from the primary on its new port, and back in the rotation; drops its slot once it is gone', async () => {
    const env = { NODE_ENV: 'test', AUTH: 'off', EMBEDDED_PG_DIR: path.join(dir, 'postgres'), EMBEDDED_REPLICAS: '1' };
    const config = loadConfig(env);
    const logs: string[] = [];
    const log = (line: string) => logs.push(line);
    let database: Database | undefined = await openDatabase(config, log, { demo: false });
    const firstPort = database.embedded!.port;
    await stopDatabases(database);
    database = undefined;
    // The old port taken meanwhile: the primary surely starts on another one, as after most restarts.
    const taken = await hold(firstPort);
    const pools: Pool[] = [];
    let reads: ReadRouter | undefined;
    try {
      database = await openDatabase(config, log, { demo: false });
      expect(database.embedded!.port).not.toBe(firstPort);
      const target = (name: string, role: 'primary' | 'replica', url: string) => {
        const queries = createPool(url, config, log);
        const streams = createPool(url, config, log, 'streams');
        pools.push(queries, streams);
        return { name, role, address: addressOf(url), queries, streams };
      };
      reads = new ReadRouter(target('primary', 'primary', database.url), [target('replica 1', 'replica', database.replicaUrls[0])], {
        maxLagMs: 5000,
        checkMs: 200,
        log,
      });
      await reads.start();
      // A write on the primary: the standby is fresh only once it has received and replayed it.
      await query(database.url, 'CREATE TABLE after_restart (id int)');
      const replica = () => reads!.status()[1];
      await eventually(() => replica().in_rotation && replica().replicating, {
        ms: 30000,
        what: `the standby back in the rotation (${JSON.stringify(replica())})`,
      });
      const [receiver] = await query<{ status: string; sender_port: number }>(
        database.replicaUrls[0].replace(`/${EMBEDDED_DATABASE}`, '/postgres'),
        'SELECT status, sender_port FROM pg_stat_wal_receiver',
      );
      expect(receiver).toEqual({ status: 'streaming', sender_port: database.embedded!.port });
      const app = createApp({ pool: pools[0], streamPool: pools[1], reads, config, log });
      expect((await request(app).get('/health/ready').expect(200)).body).toMatchObject({ status: 'ok' });

      // Pointed where no primary runs, it receives nothing: readiness and the metrics say so.
      const standbyAdmin = database.replicaUrls[0].replace(`/${EMBEDDED_DATABASE}`, '/postgres');
      await query(standbyAdmin, "ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port=1 user=postgres'");
      await query(standbyAdmin, 'SELECT pg_reload_conf()');
      await eventually(() => replica().replicating === false, { ms: 15000, what: 'the standby seen not replicating' });
      const ready = await request(app).get('/health/ready').expect(200);
      expect(ready.body).toMatchObject({ status: 'degraded', databases: [{ name: 'primary' }, { name: 'replica 1', replicating: false }] });
      const metrics = await request(app).get('/metrics').expect(200);
      expect(metrics.text).toContain('db_database_replicating{database="replica 1",role="replica"} 0');
      expect(logs).toContain(
        `replica 1 (${addressOf(database.replicaUrls[0])}) receives no WAL from its primary: it falls behind at the primary's next write`,
      );

      // Started again without the standby (EMBEDDED_REPLICAS lowered): nothing will read its slot, which goes.
      reads.stop();
      reads = undefined;
      await Promise.all(pools.splice(0).map((pool) => pool.end()));
      await stopDatabases(database);
      database = await openDatabase(loadConfig({ ...env, EMBEDDED_REPLICAS: '0' }), log, { demo: false });
      expect(logs).toContain('Dropped the replication slot replica_1: EMBEDDED_REPLICAS is 0');
      expect(await query(database.embedded!.url('postgres'), 'SELECT slot_name FROM pg_replication_slots')).toEqual([]);
    } finally {
      reads?.stop();
      await Promise.all(pools.map((pool) => pool.end()));
      taken.close();
      await stopDatabases(database);
    }
  });
});

describe("a stopped standby's replication slot", () => {
  it('stops holding WAL past EMBEDDED_SLOT_WAL_KEEP_MB, and the standby is made anew at its next start', async () => {
    const primary = await startEmbedded(path.join(dir, 'primary'), { slotWalKeepMb: 32 });
    let standby: EmbeddedServer | undefined;
    const logs: string[] = [];
    try {
      const url = primary.url('postgres');
      standby = await startEmbeddedStandby(primary, path.join(dir, 'standby'), 'replica_1');
      await eventually(async () => (await query(url, 'SELECT 1 FROM pg_replication_slots WHERE active')).length === 1, {
        what: 'the slot in use',
      });
      await standby.stop();
      standby = undefined;

      // 96 MB of WAL the stopped standby never takes: six segments, each closed after a write.
      await query(url, 'CREATE TABLE writes (n int)');
      for (let i = 0; i < 6; i++) await query(url, `INSERT INTO writes VALUES (${i}); SELECT pg_switch_wal()`);
      const slot = async () =>
        (
          await query<{ wal_status: string; held: string | null }>(
            url,
            `SELECT wal_status, pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint AS held FROM pg_replication_slots`,
          )
        )[0];
      expect(Number((await slot()).held)).toBeGreaterThan(80 * 1024 * 1024);
      // The next checkpoint gives the WAL past the cap back: the slot holds none.
      await eventually(
        async () => {
          await query(url, 'CHECKPOINT');
          const s = await slot();
          return s.wal_status === 'lost' && s.held === null;
        },
        { ms: 20000, what: 'the slot lost' },
      );

      // Its standby cannot catch up from it: the next start makes it anew, and it replicates.
      standby = await startEmbeddedStandby(primary, path.join(dir, 'standby'), 'replica_1', { log: (line) => logs.push(line) });
      expect(logs).toEqual([
        `The standby in ${standby.dataDir} is made anew: its replication slot replica_1 lost the WAL it needed`,
        expect.stringMatching(/^Creating the embedded PostgreSQL cluster in /),
      ]);
      await eventually(
        async () => (await query(url, "SELECT 1 FROM pg_replication_slots WHERE active AND wal_status = 'reserved'")).length === 1,
        {
          ms: 20000,
          what: 'the new standby streaming through its slot',
        },
      );
      expect(await query(standby.url('postgres'), 'SELECT n FROM writes ORDER BY n')).toHaveLength(6);
    } finally {
      await standby?.stop();
      await primary.stop();
    }
  });
});
