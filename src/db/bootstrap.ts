import pg from 'pg';
import type { Config } from '../config';
import { startEmbedded, startEmbeddedStandby, type EmbeddedServer } from './embedded';
import { migrateDatabase } from './migrate';
import { DEFAULT_DEMO, seedDemo } from '../../db/seeds/demo';

export const EMBEDDED_DATABASE = 'rider_equipment';

export interface Database {
  url: string;
  /** Hot standbys of `url` for the domain reads: DATABASE_REPLICA_URLS, or the embedded ones. */
  replicaUrls: string[];
  embedded?: EmbeddedServer;
  /** The embedded primary's standbys (EMBEDDED_REPLICAS), in the order of replicaUrls. */
  embeddedReplicas?: EmbeddedServer[];
}

export interface OpenOptions {
  /** Migrate the embedded database and load the demo data into it when it is empty. */
  demo: boolean;
  /**
   * With `demo`, on the embedded database: called with its URL once it holds the demo data, before its
   * standbys are made (the caller issues the demo's credentials there). A failure stops the servers.
   */
  onDemo?: (url: string) => Promise<void>;
}

async function ensureDatabase(adminUrl: string, name: string): Promise<boolean> {
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    await admin.query(`CREATE DATABASE "${name}"`);
    return true;
  } finally {
    await admin.end();
  }
}

/** The start of the current minute: where the demo's history ends when `npm start` loads it. */
export const thisMinute = () => Math.floor(Date.now() / 60000) * 60000;

/**
 * Migrates, then (unless told not to) loads the demo data if the riders table is empty, its history
 * ending at `anchor`: by default now, so a fresh start shows today's checks (tests and the bench
 * seed with the fixed DEMO_ANCHOR instead).
 */
export async function prepareDemo(url: string, log: (msg: string) => void, demo = true, anchor = thisMinute()): Promise<void> {
  const applied = await migrateDatabase(url);
  if (applied.length) log(`Applied migrations: ${applied.join(', ')}`);
  if (!demo) return;
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query('SELECT EXISTS (SELECT 1 FROM riders) AS seeded');
    if (!rows[0].seeded) {
      log(
        `Loading demo data (${DEFAULT_DEMO.riders} riders, seed ${DEFAULT_DEMO.seed}, history up to ${new Date(anchor).toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
      );
      await seedDemo(client, { ...DEFAULT_DEMO, anchor, log });
    }
  } finally {
    await client.end();
  }
}

/**
 * The kept data's settings against the service's: the list entries' and exchange days' time zone
 * (migration 006) against TIME_ZONE, and the thresholds the rules' kept days are written for
 * (migration 023) against ATTENTION_FAILED_CHECKS and ATTENTION_UNCHECKED_DAYS. When the zone differs,
 * every list page is built afresh (correct, about ten times the database work); when the thresholds
 * differ, "Needs attention" counts up to 1,000 instead of exactly. So a database the service owns (the
 * embedded one) is rewritten for the service's settings, and for any other the log says what to run
 * (`npm run db:migrate` runs it too). A database that cannot be read yet (away, not migrated) is left
 * for later: it never stops a start.
 */
export async function alignKeptSettings(
  url: string,
  config: Pick<Config, 'timeZone' | 'attention'>,
  log: (msg: string) => void,
  owned: boolean,
): Promise<void> {
  // A server that does not answer holds the start for 3 s at most.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: owned ? 0 : 3000 });
  const { timeZone, attention } = config;
  try {
    await client.connect();
    const { rows } = await client.query<{ zone: string }>('SELECT zone FROM rider_list_zone');
    const zone = rows[0]?.zone;
    if (zone !== undefined && zone !== timeZone) {
      if (owned) {
        log(`Rewriting the kept rider list entries for TIME_ZONE ${timeZone} (they were written in ${zone})`);
        await client.query('SELECT rider_list_set_zone($1)', [timeZone]);
      } else {
        log(
          `TIME_ZONE is ${timeZone} but the kept rider list entries and exchange days are written in ${zone}: ` +
            `/v2/rider-equipment-list builds every page itself, and "Needs attention" may date an exchange day by ` +
            `${zone}'s daylight-saving rules, until the tables' owner runs SELECT rider_list_set_zone(${pg.escapeLiteral(timeZone)});`,
        );
      }
    }
    const { rows: kept } = await client.query<{ failed_checks: number; unchecked_days: number }>(
      'SELECT failed_checks, unchecked_days FROM kept_rule_settings',
    );
    const set = `SELECT kept_rules_set(${attention.failedChecks}, ${attention.uncheckedDays});`;
    if (kept[0] && (kept[0].failed_checks !== attention.failedChecks || kept[0].unchecked_days !== attention.uncheckedDays)) {
      if (owned) {
        log(`Rewriting the kept days of "Needs attention" for its thresholds (${set})`);
        await client.query(set);
      } else {
        log(
          `ATTENTION_FAILED_CHECKS and ATTENTION_UNCHECKED_DAYS are ${attention.failedChecks} and ${attention.uncheckedDays} but the ` +
            `kept days of "Needs attention" are written for ${kept[0].failed_checks} and ${kept[0].unchecked_days}: its counts stop at ` +
            `1,000 until the tables' owner runs ${set}`,
        );
      }
    }
  } catch (error) {
    if (owned) log(`Could not align the kept data with the service's settings: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Drops the slots of embedded standbys past EMBEDDED_REPLICAS (replica_N, N above it, not in use): nothing
 * will read their WAL again, which they would otherwise keep up to EMBEDDED_SLOT_WAL_KEEP_MB each.
 */
async function dropGoneSlots(adminUrl: string, replicas: number, log: (msg: string) => void): Promise<void> {
  const client = new pg.Client(adminUrl);
  try {
    await client.connect();
    // CASE: PostgreSQL may test the conditions of an AND in any order, and another slot's name is no number.
    const { rows } = await client.query<{ slot_name: string }>(
      `SELECT slot_name, pg_drop_replication_slot(slot_name) FROM pg_replication_slots
        WHERE NOT active AND CASE WHEN slot_name ~ '^replica_[0-9]{1,6}$' THEN substr(slot_name, 9)::int > $1 ELSE false END`,
      [replicas],
    );
    for (const { slot_name } of rows) log(`Dropped the replication slot ${slot_name}: EMBEDDED_REPLICAS is ${replicas}`);
  } catch (error) {
    // Not worth stopping a start for: the slot keeps at most EMBEDDED_SLOT_WAL_KEEP_MB.
    log(`Could not drop the slots of embedded standbys past EMBEDDED_REPLICAS: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * With DATABASE_URL: that server, as it is (migrations are run on purpose with `npm run db:migrate`).
 * Without: an embedded PostgreSQL in a local folder, migrated and loaded with demo data on first start.
 */
export async function openDatabase(config: Config, log: (msg: string) => void, options: OpenOptions = { demo: true }): Promise<Database> {
  if (config.databaseUrl) {
    await alignKeptSettings(config.databaseUrl, config, log, false);
    return { url: config.databaseUrl, replicaUrls: config.replicaUrls };
  }
  const embedded = await startEmbedded(config.embedded.dir, {
    port: config.embedded.port,
    slotWalKeepMb: config.embedded.slotWalKeepMb,
    log,
  });
  const replicas: EmbeddedServer[] = [];
  try {
    await ensureDatabase(embedded.url('postgres'), EMBEDDED_DATABASE);
    const url = embedded.url(EMBEDDED_DATABASE);
    await prepareDemo(url, log, options.demo);
    await alignKeptSettings(url, config, log, true);
    if (options.demo) await options.onDemo?.(url);
    await dropGoneSlots(embedded.url('postgres'), config.embedded.replicas, log);
    // Standbys come last: made from the primary as it is now, demo data and all.
    for (let i = 1; i <= config.embedded.replicas; i++) {
      replicas.push(await startEmbeddedStandby(embedded, `${config.embedded.dir}-replica-${i}`, `replica_${i}`, { log }));
    }
    return { url, replicaUrls: replicas.map((r) => r.url(EMBEDDED_DATABASE)), embedded, embeddedReplicas: replicas };
  } catch (error) {
    for (const replica of replicas) await replica.stop();
    await embedded.stop();
    throw error;
  }
}
