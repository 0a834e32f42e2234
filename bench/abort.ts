// Abandoned downloads: many clients start a full export and hang up after a fraction of a second, as
// `curl -m 0.3` does. Measures what PostgreSQL is still running for them afterwards, from
// pg_stat_activity, and the most streaming statements it ever ran at once (client backends only: a
// parallel query's workers carry their leader's application name).
import http from 'node:http';
import pg from 'pg';

export const ABORT_PATHS = ['/v2/patrollerchecks', '/v2/assign-list'] as const;

export interface AbortResult {
  /** What the service ran with for this case (e.g. STREAMS_PER_TOKEN). */
  label: string;
  requests: number;
  /** Status codes the clients saw before they hung up ('none': no headers yet). */
  statuses: Record<string, number>;
  /** The most streaming statements seen running at once, sampled every 25 ms. */
  maxRunning: number;
  /** Streaming statements still running 1 s and 5 s after the last client hung up. */
  runningAfter1s: number;
  runningAfter5s: number;
  /** Those still running 1 s after: how long each had run, what it waited on, the start of its SQL. */
  stillRunning: string[];
}

const STREAMING = `
  FROM pg_stat_activity
   WHERE datname = current_database() AND state = 'active' AND backend_type = 'client backend'
     AND application_name LIKE 'rider-equipment-service%' AND query ~* '^\\s*(COPY|SELECT)'`;

/** Starts a GET and hangs up after `ms`, whatever has arrived; resolves with the status seen, if any. */
function abandon(url: string, headers: Record<string, string>, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let status = 'none';
    const req = http.get(url, { headers }, (res) => {
      status = String(res.statusCode);
      res.on('data', () => undefined);
    });
    req.on('error', () => undefined);
    req.on('close', () => resolve(status));
    setTimeout(() => req.destroy(), ms);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `perPath` downloads of each of ABORT_PATHS at once, each dropped after 300 to 500 ms (spread
 * evenly), while a separate connection samples pg_stat_activity.
 */
export async function runAbortScenario(
  base: string,
  headers: Record<string, string>,
  databaseUrl: string,
  label: string,
  perPath = 20,
): Promise<AbortResult> {
  const monitor = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-monitor' });
  await monitor.connect();
  try {
    const running = async () => ((await monitor.query(`SELECT count(*)::int AS n ${STREAMING}`)).rows[0] as { n: number }).n;
    const details = async () =>
      (
        await monitor.query(
          `SELECT round(extract(epoch FROM now() - query_start) * 1000) || ' ms, ' || coalesce(wait_event, 'on CPU') || ': ' || left(query, 40) AS d ${STREAMING}`,
        )
      ).rows.map((row: { d: string }) => row.d);
    let maxRunning = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        maxRunning = Math.max(maxRunning, await running());
        await sleep(25);
      }
    })();
    const total = perPath * ABORT_PATHS.length;
    const clients = Array.from({ length: total }, (_, i) =>
      abandon(`${base}${ABORT_PATHS[i % ABORT_PATHS.length]}`, headers, 300 + Math.round((200 * i) / Math.max(1, total - 1))),
    );
    const seen = await Promise.all(clients);
    const allGone = Date.now();
    await sleep(Math.max(0, allGone + 1000 - Date.now()));
    const stillRunning = await details();
    const runningAfter1s = stillRunning.length;
    await sleep(Math.max(0, allGone + 5000 - Date.now()));
    const runningAfter5s = await running();
    sampling = false;
    await sampler;
    const statuses: Record<string, number> = {};
    for (const s of seen) statuses[s] = (statuses[s] ?? 0) + 1;
    return { label, requests: total, statuses, maxRunning, runningAfter1s, runningAfter5s, stillRunning };
  } finally {
    await monitor.end();
  }
}

export function abortTable(results: AbortResult[], streamPoolMax: string): string {
  const rows = results.map((r) => {
    const statuses = Object.entries(r.statuses)
      .map(([s, n]) => `${n}× ${s}`)
      .join(', ');
    return `| ${r.label} | ${r.requests} | ${statuses} | ${r.maxRunning} (pool ${streamPoolMax}) | ${r.runningAfter1s} | ${r.runningAfter5s} |`;
  });
  return [
    '| case | downloads dropped after 0.3–0.5 s | statuses seen | most streaming statements at once | still running 1 s after | 5 s after |',
    '|---|---:|---|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

// `node dist/bench/abort.js BASE DATABASE_URL [TOKEN]`: the scenario alone, against a service already running.
if (require.main === module) {
  const [base, databaseUrl, token] = process.argv.slice(2);
  if (!base || !databaseUrl) {
    console.error('usage: node dist/bench/abort.js BASE_URL DATABASE_URL [TOKEN]');
    process.exit(2);
  }
  runAbortScenario(base, token ? { authorization: `Bearer ${token}` } : {}, databaseUrl, 'as running').then(
    (result) => {
      console.log(abortTable([result], process.env.DB_STREAM_POOL_MAX ?? '10'));
      for (const line of result.stillRunning) console.log(`still running 1 s after: ${line}`);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
