// Reads on a real hot standby: an embedded primary and a standby streaming from it, started here
// (whatever DATABASE_URL says: a standby of that server cannot be made from the tests).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import request from 'supertest';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { startEmbedded, startEmbeddedStandby, type EmbeddedServer } from '../src/db/embedded';
import { migrateDatabase } from '../src/db/migrate';
import { createPool, type Pool } from '../src/db/pool';
import { addressOf, ReadRouter, type ReadTarget } from '../src/db/replicas';
import { eventually } from './support/wait';

jest.setTimeout(60000);

const DATABASE = 'replicated';
const config = loadConfig({ NODE_ENV: 'test', AUTH: 'off', DB_ACQUIRE_TIMEOUT_MS: '2000', STREAMS_PER_TOKEN: '100' });
/**
 * For reads that must come from a paused standby: CI saw one answered by the primary on a busy machine, where
 * a 2 s connection or a 1 s lag check to the standby took it out of the rotation (as it should on a real one).
 */
const patientConfig = loadConfig({ NODE_ENV: 'test', AUTH: 'off', DB_ACQUIRE_TIMEOUT_MS: '30000', STREAMS_PER_TOKEN: '100' });
let dir: string;
let primary: EmbeddedServer;
let standby: EmbeddedServer;
let primarySql: pg.Client;
const pools: Pool[] = [];
let reads: ReadRouter;
let app: ReturnType<typeof createApp>;
/** The same targets behind a bound no busy machine reaches: reads that must come from a paused standby. */
let patientReads: ReadRouter;
let patientApp: ReturnType<typeof createApp>;
const logs: string[] = [];

const target = (name: string, role: ReadTarget['role'], url: string, settings = config): ReadTarget => {
  const queries = createPool(url, settings, (m) => logs.push(m));
  const streams = createPool(url, settings, (m) => logs.push(m), 'streams');
  pools.push(queries, streams);
  return { name, role, address: addressOf(url), queries, streams };
};

/** A standby's own view, on a connection of its own. */
async function onStandby<T>(sql: string): Promise<T> {
  const client = new pg.Client(standby.url(DATABASE));
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as T;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-equipment-replicas-'));
  fs.chmodSync(dir, 0o755);
  primary = await startEmbedded(path.join(dir, 'primary'));
  primarySql = new pg.Client(primary.url('postgres'));
  await primarySql.connect();
  await primarySql.query(`CREATE DATABASE ${DATABASE}`);
  await primarySql.end();
  await migrateDatabase(primary.url(DATABASE));
  primarySql = new pg.Client(primary.url(DATABASE));
  await primarySql.connect();
  await primarySql.query(fs.readFileSync(path.join(__dirname, 'fixtures/fixture.sql'), 'utf8'));
  standby = await startEmbeddedStandby(primary, path.join(dir, 'standby'), 'replica_test');

  const main = target('primary', 'primary', primary.url(DATABASE));
  const replica = target('replica 1', 'replica', standby.url(DATABASE));
  reads = new ReadRouter(main, [replica], { maxLagMs: 3000, checkMs: 200, log: (m) => logs.push(m) });
  await reads.start();
  app = createApp({ pool: main.queries, streamPool: main.streams, reads, config, log: (m) => logs.push(m) });
  // A paused standby falls behind from its last replayed commit on: with 3 s, a slow run of the first
  // test's reads saw it leave the rotation (and the primary's answer) before its last read.
  // Its own pools and checks bounded at 5 s (the bound is checkMs, at least 1 s and at most 5 s).
  const patientMain = target('primary', 'primary', primary.url(DATABASE), patientConfig);
  const patientReplica = target('replica 1', 'replica', standby.url(DATABASE), patientConfig);
  patientReads = new ReadRouter(patientMain, [patientReplica], { maxLagMs: 60000, checkMs: 5000, log: (m) => logs.push(m) });
  await patientReads.start();
  patientApp = createApp({
    pool: patientMain.queries,
    streamPool: patientMain.streams,
    reads: patientReads,
    config: patientConfig,
    log: (m) => logs.push(m),
  });
});

afterAll(async () => {
  reads?.stop();
  patientReads?.stop();
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  await primarySql?.end().catch(() => undefined);
  await standby?.stop();
  await primary?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Replay paused on the standby: pg_wal_replay_pause() only asks, and a record replayed before the
 * standby looks at the request would still show (CI saw a rider inserted just after the call).
 */
async function pauseReplay(): Promise<void> {
  await onStandby('SELECT pg_wal_replay_pause()');
  await eventually(async () => (await onStandby<{ state: string }>('SELECT pg_get_wal_replay_pause_state() AS state')).state === 'paused', {
    what: 'replay paused',
  });
}

const riders = async () => (await request(app).get('/v2/riders').expect(200)).body as Array<{ 'Rider ID': number }>;
/** Whether the admin search finds the rider added on the primary. */
const findsNewRider = async () => {
  // The one rider of that name opens at once (303 to its page); none found is a page saying so.
  const res = await request(app).get('/admin/search?q=Replicated');
  return res.status === 303 && /^\/admin\/riders\/\d+$/.test(res.headers.location);
};
const inRotation = (name: string) => reads.status().find((s) => s.name === name)!.in_rotation;

describe('reads on a hot standby', () => {
  it('serves every domain read from the standby while it is in the rotation', async () => {
    expect(await onStandby<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby')).toEqual({ standby: true });
    const ready = await request(app).get('/health/ready').expect(200);
    expect(ready.body.databases).toEqual([
      expect.objectContaining({ name: 'primary', role: 'primary', in_rotation: false }),
      expect.objectContaining({ name: 'replica 1', role: 'replica', in_rotation: true, lag_ms: 0 }),
    ]);

    // Replay paused: a rider added on the primary is not in the answers, so they come from the standby
    // (for REPLICA_MAX_LAG_MS after the last commit it replayed: one made just before).
    const before = await riders();
    await primarySql.query('UPDATE riders SET name = name WHERE id = 101');
    const { lsn } = (await primarySql.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0];
    await eventually(
      async () => (await onStandby<{ replayed: boolean }>(`SELECT pg_last_wal_replay_lsn() >= '${lsn}' AS replayed`)).replayed,
      { what: 'that commit replayed' },
    );
    await pauseReplay();
    await primarySql.query("INSERT INTO riders (id, name, company_id, country_id) VALUES (999001, 'Replicated Rider', 1, 1)");
    // What the service's applier writes on the primary (the search's kept bigrams of the name: migration 025).
    await primarySql.query('SELECT kept_apply_all()');
    for (const path of ['/v2/riders', '/v2/rider-equipment-list?rider_id=999001', '/admin/search?q=Replicated']) {
      const res = await request(patientApp).get(path);
      // Why, when not: the rotation as the router saw it, and its last log lines.
      const seen = { path, status: res.status, ...(res.status === 200 ? {} : { rotation: patientReads.status(), log: logs.slice(-5) }) };
      expect(seen).toEqual({ path, status: 200 });
      expect(res.text).not.toContain('Replicated Rider');
    }
    expect((await request(patientApp).get('/v2/riders').expect(200)).body).toEqual(before);
    await request(patientApp).get('/admin/riders/999001/report').expect(404);
    expect(patientReads.status()[1].in_rotation).toBe(true);

    // Replayed: the service answers with it.
    await onStandby('SELECT pg_wal_replay_resume()');
    await eventually(findsNewRider, { what: 'the new rider answered once replayed' });
    expect((await request(app).get('/admin/riders/999001/report').expect(200)).text).toContain('Replicated Rider');
  });

  it('leaves the rotation when its replay falls behind by more than REPLICA_MAX_LAG_MS, and comes back', async () => {
    await eventually(() => inRotation('replica 1'), { what: 'the standby in the rotation' });
    await pauseReplay();
    try {
      // The primary goes on taking writes the standby does not replay.
      await eventually(
        async () => {
          await primarySql.query("UPDATE riders SET name = name || '' WHERE id = 999001");
          return !inRotation('replica 1');
        },
        { ms: 10000, every: 200, what: 'the lagging standby out of the rotation' },
      );
      expect(reads.status()[1].reason).toMatch(/behind \(REPLICA_MAX_LAG_MS 3000\)/);
      // Reads now go to the primary, which has the rider.
      expect(await findsNewRider()).toBe(true);
      expect((await request(app).get('/health/ready').expect(200)).body.databases[0].in_rotation).toBe(true);
    } finally {
      await onStandby('SELECT pg_wal_replay_resume()');
    }
    await eventually(() => inRotation('replica 1'), { what: 'the standby back in the rotation' });
  });

  it('gives no 5xx but to requests in flight when the standby stops under load, then reads from the primary, and takes it back', async () => {
    const statuses: number[] = [];
    let loading = true;
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (loading) statuses.push((await request(app).get('/v2/patrollerchecks?rider_id=101')).status);
      }),
    );
    await eventually(() => statuses.length >= 8, { what: 'the load running' });
    const port = standby.port;
    await standby.stop();
    const stoppedAt = statuses.length;
    await eventually(() => !inRotation('replica 1'), { what: 'the stopped standby out of the rotation' });
    const outAt = statuses.length;
    await eventually(() => statuses.length - outAt >= 8, { what: 'requests answered after it left the rotation' });
    loading = false;
    await load;

    // At most the 4 requests in flight when it stopped fail, with 503, never 500; all later ones succeed.
    const failed = statuses.filter((s) => s !== 200);
    // Each status in order, with where the standby stopped (|) and left the rotation (^), for a failure's message.
    const story = statuses.map((s, i) => `${i === stoppedAt ? '| ' : ''}${i === outAt ? '^ ' : ''}${s}`).join(' ');
    expect({ all503: failed.every((s) => s === 503), atMost4: failed.length <= 4, story }).toEqual({
      all503: true,
      atMost4: true,
      story: expect.any(String),
    });
    expect(statuses.length - stoppedAt).toBeGreaterThan(4);
    expect({ last: statuses.slice(-4), story }).toEqual({ last: [200, 200, 200, 200], story });
    const ready = await request(app).get('/health/ready').expect(200);
    expect(ready.body.databases[1]).toEqual(expect.objectContaining({ in_rotation: false, reason: expect.any(String) }));

    // Started again on the same port: back in the rotation by itself.
    standby = await startEmbeddedStandby(primary, path.join(dir, 'standby'), 'replica_test', { port });
    await eventually(() => inRotation('replica 1'), { ms: 10000, what: 'the restarted standby back in the rotation' });
    await request(app).get('/v2/patrollerchecks?rider_id=101').expect(200);
    expect(logs.some((line) => /replica 1 .* leaves the read rotation/.test(line))).toBe(true);
    expect(logs.some((line) => / -> 500:/.test(line))).toBe(false);
  });
});
