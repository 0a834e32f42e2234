// Command-line options of `npm run bench -- [options]`.
import { parseArgs } from 'node:util';

export const GROUPS = ['rider', 'date', 'page', 'stream', 'abort', 'startup', 'admin'] as const;
export type Group = (typeof GROUPS)[number];

export interface BenchOptions {
  riders: number;
  seed: number;
  /** Seconds of measurement per load scenario, for autocannon and pgbench alike. */
  duration: number;
  /** Seconds of unmeasured load before each autocannon run (JIT, caches, pool connections). */
  warmup: number;
  connections: number;
  /** Connections of the one-week scenarios: their answers are large (a week of checks is ~45 MB). */
  dateConnections: number;
  /** Repeats of each load scenario; the table shows the median. */
  repeat: number;
  /** Runs of each full stream (HTTP and COPY); the table shows the median. */
  streamRuns: number;
  /** pgbench -M: prepared (the targets' comparison), extended or simple. */
  pgbenchMode: string;
  /**
   * Seconds pgbench may run past `duration` to finish the transactions in flight; pgbench still
   * running then is stopped and its figure is "did not finish in duration + grace s".
   */
  pgbenchGrace: number;
  groups: Set<Group>;
  /** Hot standbys and worker processes for the layouts of the rider scenarios (see scale.ts); 0 and 1: none. */
  replicas: number;
  processes: number;
  reload: boolean;
  explain: boolean;
  /** Profile the service and the bare server (see profile.ts) instead of the groups. */
  profile: boolean;
  /** admin: the size of the second dataset each page is compared with. */
  compareRiders: number;
  /** admin: sequential requests per page, and shared by the 4 clients at 4 connections (ceil(N/4) each). */
  adminRequests: number;
  /** admin: the page number of each list's deep page. */
  adminDeepPage: number;
  /** admin: seconds after which no new request of a page's run starts (each run has at least one). */
  adminPageSeconds: number;
  /** admin: connections of the API load in the isolation scenario. */
  adminApiConnections: number;
  /** admin: sort each column ascending only, not both ways. */
  adminAscendingOnly: boolean;
  /** admin: only the pages whose name matches. */
  adminPages?: RegExp;
  /** admin: supervisors of the team scenario (0: none). */
  adminTeam: number;
  /** admin: the team scenario only, on the bench's dataset (no per-page figures, no second dataset). */
  adminTeamOnly: boolean;
  /** admin: the work queue's pages and one batch only, on the bench's dataset. */
  adminQueueOnly: boolean;
  /** The admin lists' whole CSVs beside psql's COPY of the same rows, nothing else (admin-csv.ts). */
  adminCsvOnly: boolean;
  /** Write the run's tables into their regions of docs/runs/BENCHMARKS.md and docs/runs/ADMIN-BENCHMARKS.md (bench/record.ts). */
  record: boolean;
}

export const usage = `usage: npm run bench -- [options]
  --riders N        dataset size (default 100000: ~1M assignments, 1M checks, 15M answers)
  --seed S          demo seed (default 42)
  --duration S      seconds per load scenario (default 10)
  --warmup S        unmeasured seconds before each HTTP load run (default 1)
  --connections N   concurrent connections of the rider and page scenarios (default 16)
  --date-connections N  concurrent connections of the one-week scenarios (default 4)
  --repeat N        runs of each load scenario, median reported (default 1)
  --stream-runs N   runs of each full stream and COPY, median reported (default 3)
  --pgbench-mode M  pgbench -M: prepared (default), extended, or simple (parameters as literals)
  --pgbench-grace S seconds pgbench may run past --duration to finish the transactions in flight
                    (default 120); still running then, it is stopped and reported as "did not
                    finish in duration + S s" (e.g. the naive last page on a loaded machine)
  --only LIST       comma-separated groups: ${GROUPS.join(',')} (default: all but startup and admin)
                      rider, date, page: request load, each with pgbench on the same SQL
                      stream: full /v2/patrollerchecks, /v2/assign-list, /v2/product-returns and /v2/product-exchanges, and COPY of the same SQL
                      abort: 40 full downloads dropped after 0.3-0.5 s, on a fresh service with its
                        defaults and again with STREAMS_PER_TOKEN=40; what PostgreSQL still runs
                        for them (at most DB_STREAM_POOL_MAX, default 10; none 1 s after)
                      startup: see --startup
                      admin: every admin page signed in, at --riders and at --compare-riders (a second
                        dataset in its own database), 1 and 4 connections; then the API's p99 with
                        and without 4 slow admin pages running (docs/runs/ADMIN-BENCHMARKS.md)
  --compare-riders N    admin: size of the dataset each page is compared with (default 10000)
  --admin-requests N    admin: requests per page at 1 connection, and shared by 4 clients at 4 (default 7)
  --admin-deep-page N   admin: the deep page of each list (default 400)
  --admin-page-seconds S  admin: no new request of a page's run after S s (default 30; a run makes at least one)
  --admin-api-connections N  admin: connections of the API load in the isolation scenario (default 4)
  --admin-ascending-only    admin: sort each sortable column ascending only, not both ways
  --admin-pages REGEX   admin: only the pages whose name matches (e.g. 'checks|riders/:rider'); with --admin-csv-only, the lists whose path does
  --admin-team N        admin: supervisors opening random pages without pause in the team scenario (default 8; 0: none)
  --admin-team-only     admin: the team scenario alone, at --riders (no per-page figures, no second dataset)
  --admin-queue-only    admin: the work queue alone, at --riders: Needs attention's pages and one batch (written, then undone)
  --admin-csv-only      admin: each list's whole CSV (first byte, all) beside psql's COPY of the same rows, --stream-runs times, at --riders
  --record          write the run's tables into their regions of docs/runs/BENCHMARKS.md and docs/runs/ADMIN-BENCHMARKS.md, replacing the last run's
  --replicas N      with --processes M: the rider scenarios on 0/N hot standbys of the embedded bench
                    server × 1/M worker processes (and the rate-limit store's cost), each database's
                    share of the statements; instead of the other groups
  --processes M     see --replicas
  --profile         instead of the groups: the service and the bare server each under node --cpu-prof on
                    /v2/assign-list by a random rider and on list page 1 (--duration s after --warmup),
                    their CPU per request by component (npm package, Node.js module, service file, GC)
  --startup         add the startup scenario (fresh embedded demo until the first answer)
  --reload          drop and reload the dataset even if it matches
  --explain         also write EXPLAIN (ANALYZE, BUFFERS) of every scenario's SQL
  DATABASE_URL      use that server (database rider_equipment_bench) instead of the embedded one`;

function whole(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`--${name} must be a whole number of at least ${min}\n${usage}`);
  return Number(raw);
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      riders: { type: 'string' },
      seed: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      'date-connections': { type: 'string' },
      repeat: { type: 'string' },
      'stream-runs': { type: 'string' },
      only: { type: 'string' },
      'pgbench-mode': { type: 'string' },
      'pgbench-grace': { type: 'string' },
      replicas: { type: 'string' },
      processes: { type: 'string' },
      startup: { type: 'boolean' },
      reload: { type: 'boolean' },
      explain: { type: 'boolean' },
      profile: { type: 'boolean' },
      'compare-riders': { type: 'string' },
      'admin-requests': { type: 'string' },
      'admin-deep-page': { type: 'string' },
      'admin-page-seconds': { type: 'string' },
      'admin-api-connections': { type: 'string' },
      'admin-ascending-only': { type: 'boolean' },
      'admin-pages': { type: 'string' },
      'admin-team': { type: 'string' },
      'admin-team-only': { type: 'boolean' },
      'admin-queue-only': { type: 'boolean' },
      'admin-csv-only': { type: 'boolean' },
      record: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const groups = new Set<Group>(GROUPS.filter((g) => g !== 'startup' && g !== 'admin'));
  if (values.only) {
    groups.clear();
    for (const name of values.only
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (!(GROUPS as readonly string[]).includes(name)) throw new Error(`--only: unknown group "${name}"\n${usage}`);
      groups.add(name as Group);
    }
  }
  if (values.startup) groups.add('startup');
  const pgbenchMode = values['pgbench-mode'] ?? 'prepared';
  if (!['prepared', 'extended', 'simple'].includes(pgbenchMode))
    throw new Error(`--pgbench-mode must be prepared, extended or simple\n${usage}`);
  return {
    riders: whole('riders', values.riders, 100000),
    seed: whole('seed', values.seed, 42, 0),
    duration: whole('duration', values.duration, 10),
    warmup: whole('warmup', values.warmup, 1, 0),
    connections: whole('connections', values.connections, 16),
    dateConnections: whole('date-connections', values['date-connections'], 4),
    repeat: whole('repeat', values.repeat, 1),
    streamRuns: whole('stream-runs', values['stream-runs'], 3),
    pgbenchMode,
    pgbenchGrace: whole('pgbench-grace', values['pgbench-grace'], 120, 0),
    groups,
    replicas: whole('replicas', values.replicas, 0, 0),
    processes: whole('processes', values.processes, 1, 1),
    reload: values.reload ?? false,
    explain: values.explain ?? false,
    profile: values.profile ?? false,
    compareRiders: whole('compare-riders', values['compare-riders'], 10000),
    adminRequests: whole('admin-requests', values['admin-requests'], 7),
    adminDeepPage: whole('admin-deep-page', values['admin-deep-page'], 400),
    adminPageSeconds: whole('admin-page-seconds', values['admin-page-seconds'], 30),
    adminApiConnections: whole('admin-api-connections', values['admin-api-connections'], 4),
    adminAscendingOnly: values['admin-ascending-only'] ?? false,
    adminPages: values['admin-pages'] ? new RegExp(values['admin-pages']) : undefined,
    adminTeam: whole('admin-team', values['admin-team'], 8, 0),
    adminTeamOnly: values['admin-team-only'] ?? false,
    adminQueueOnly: values['admin-queue-only'] ?? false,
    adminCsvOnly: values['admin-csv-only'] ?? false,
    record: values.record ?? false,
  };
}
