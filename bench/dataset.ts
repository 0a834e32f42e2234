// The benchmark's own database: on DATABASE_URL's server, or on an embedded PostgreSQL kept in
// .data/bench-postgres. Loading 100,000 riders takes minutes, so a loaded dataset is reused while
// its database comment says it holds the same size, seed and generator.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { seedDemo } from '../db/seeds/demo';
import { createToken, revokeToken, startEmbedded, type EmbeddedServer, migrateDatabase, projectRoot } from '../src/bench-entry';

export const BENCH_DATABASE = 'rider_equipment_bench';

export interface BenchServer {
  /** Where the bench database lives, for the report. */
  description: string;
  adminUrl: string;
  url: string;
  embedded?: EmbeddedServer;
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function openBenchServer(log: (msg: string) => void): Promise<BenchServer> {
  const external = process.env.DATABASE_URL;
  if (external) {
    const { host } = new URL(external);
    return { description: `DATABASE_URL server ${host}`, adminUrl: external, url: withDatabase(external, BENCH_DATABASE) };
  }
  const dir = path.join(projectRoot, '.data', 'bench-postgres');
  const embedded = await startEmbedded(dir, { log });
  return {
    description: `embedded PostgreSQL in ${path.relative(projectRoot, dir)}`,
    adminUrl: embedded.url('postgres'),
    url: embedded.url(BENCH_DATABASE),
    embedded,
  };
}

/** Changes to the generator change the data for the same seed, so its compiled code is part of the key. */
function generatorHash(): string {
  const dir = path.dirname(require.resolve('../db/seeds/demo'));
  const hash = crypto.createHash('sha256');
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort())
    hash.update(fs.readFileSync(path.join(dir, file)));
  return hash.digest('hex').slice(0, 12);
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function migrate(url: string, log: (msg: string) => void): Promise<void> {
  const applied = await migrateDatabase(url);
  if (applied.length) log(`Applied migrations: ${applied.join(', ')}`);
}

export interface DatasetInfo {
  riders: number;
  seed: number;
  marker: string;
  reused: boolean;
  loadSeconds?: number;
  counts: Record<string, number>;
  riderIds: { min: number; max: number; contiguous: boolean };
  countryIds: { min: number; max: number; contiguous: boolean };
  serverVersion: string;
  settings: Record<string, string>;
}

/** The URL of one of the bench's databases on its server (BENCH_DATABASE's is server.url). */
export function benchDatabaseUrl(server: BenchServer, database: string): string {
  return database === BENCH_DATABASE ? server.url : withDatabase(server.adminUrl, database);
}

/**
 * Makes `database` (BENCH_DATABASE unless told) hold exactly the demo data of this size and seed,
 * loading it if needed. Each database keeps its own marker, so datasets of several sizes live side
 * by side and are each reused.
 */
export async function ensureDataset(
  server: BenchServer,
  options: { riders: number; seed: number; reload: boolean },
  log: (msg: string) => void,
  database = BENCH_DATABASE,
): Promise<DatasetInfo> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`not a plain database name: ${database}`);
  const url = benchDatabaseUrl(server, database);
  const marker = `rider-equipment bench dataset: riders=${options.riders} seed=${options.seed} generator=${generatorHash()}`;
  const existing = await withClient(server.adminUrl, async (admin) => {
    const { rows } = await admin.query<{ comment: string | null }>(
      `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
      [database],
    );
    return rows.length ? { comment: rows[0].comment } : undefined;
  });

  const reuse = existing !== undefined && existing.comment === marker && !options.reload;
  let loadSeconds: number | undefined;
  if (reuse) {
    log(`Reusing the dataset in ${database} (${marker.replace(/^.*: /, '')})`);
    await migrate(url, log); // migrations added since the load apply to the existing data
  } else {
    if (existing)
      log(`${database} holds ${existing.comment ?? 'an unknown dataset'}${options.reload ? '' : ', not the one asked for'}; dropping it`);
    await withClient(server.adminUrl, async (admin) => {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${database}`);
    });
    await migrate(url, log);
    log(`Loading ${options.riders} riders (seed ${options.seed}) into ${database} on the ${server.description}`);
    const started = performance.now();
    await withClient(url, async (client) => {
      await seedDemo(client, { riders: options.riders, seed: options.seed, log: (m) => log(`  ${m}`) });
      // Visibility map and statistics settled now, not by autovacuum in the middle of a measurement.
      await client.query('VACUUM ANALYZE');
      await client.query('CHECKPOINT').catch(() => undefined); // needs superuser; only a nicety
      // The marker goes last: an interrupted load is never mistaken for a complete one.
      await client.query(`COMMENT ON DATABASE ${database} IS ${client.escapeLiteral(marker)}`);
    });
    loadSeconds = (performance.now() - started) / 1000;
    log(`Dataset ready in ${loadSeconds.toFixed(1)} s`);
  }
  return { ...(await describe(url)), riders: options.riders, seed: options.seed, marker, reused: reuse, loadSeconds };
}

const TOKEN_NAME = 'rider-equipment-bench';

/** A fresh API token for the bench's requests (the previous one is revoked), as an integrator would hold. */
export async function issueBenchToken(url: string): Promise<string> {
  return withClient(url, async (client) => {
    await revokeToken(client, TOKEN_NAME);
    return (await createToken(client, { name: TOKEN_NAME })).token;
  });
}

type Described = Omit<DatasetInfo, 'riders' | 'seed' | 'marker' | 'reused' | 'loadSeconds'>;

async function describe(url: string): Promise<Described> {
  return withClient(url, async (client) => {
    const counts: Record<string, number> = {};
    for (const table of ['riders', 'assignments', 'product_returns', 'product_exchanges', 'patrol_checks', 'patrol_check_answers']) {
      // Planner estimates would do for big tables, but exact counts are cheap enough and unambiguous.
      counts[table] = Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
    }
    const range = async (table: string) => {
      const { rows } = await client.query(`SELECT min(id)::float8 AS min, max(id)::float8 AS max, count(*)::float8 AS n FROM ${table}`);
      const { min, max, n } = rows[0] as { min: number; max: number; n: number };
      return { min, max, contiguous: n > 0 && max - min + 1 === n };
    };
    const { rows: settings } = await client.query<{ name: string; setting: string; unit: string | null }>(
      `SELECT name, setting, unit FROM pg_settings
        WHERE name IN ('shared_buffers', 'work_mem', 'effective_cache_size', 'max_connections', 'jit', 'max_parallel_workers_per_gather')`,
    );
    return {
      counts,
      riderIds: await range('riders'),
      countryIds: await range('countries'),
      serverVersion: (await client.query('SHOW server_version')).rows[0].server_version as string,
      settings: Object.fromEntries(settings.map((s) => [s.name, s.unit ? `${s.setting} (${s.unit})` : s.setting])),
    };
  });
}
