// `npm run bench -- --replicas N --processes M`: the rider scenarios with the load spread over hot
// standbys of the embedded bench server and over worker processes, each layout on a fresh service,
// with each database's share of the statements (pg_stat_database.xact_commit, read after the service
// has stopped, when every one of its backends has reported).
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedStandby, type EmbeddedServer, projectRoot } from '../src/bench-entry';
import { BENCH_DATABASE, type BenchServer } from './dataset';
import { fetchJson } from './http-load';
import { runLoadScenario, type LoadScenarioResult, type Settings, type Tools } from './runner';
import type { LoadScenario } from './scenarios';
import { startService } from './service';

export interface Layout {
  replicas: number;
  processes: number;
  /** RATE_LIMIT_STORE the service ran with. */
  rateLimitStore: 'postgres' | 'memory';
}

export interface DatabaseShare {
  database: string;
  statements: number;
  share: number;
}

export interface LayoutResult extends Layout {
  scenarios: LoadScenarioResult[];
  shares: DatabaseShare[];
}

/** The layouts measured: the store's own cost first (memory against postgres, one process), then 0/N replicas × 1/M processes. */
export function layouts(replicas: number, processes: number): Layout[] {
  const out: Layout[] = [{ replicas: 0, processes: 1, rateLimitStore: 'memory' }];
  for (const r of [...new Set([0, replicas])]) {
    for (const p of [...new Set([1, processes])]) out.push({ replicas: r, processes: p, rateLimitStore: 'postgres' });
  }
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Transactions the bench database has finished on one server (each statement of the service is one). */
async function transactions(adminUrl: string): Promise<number> {
  const client = new pg.Client(adminUrl);
  await client.connect();
  try {
    const { rows } = await client.query('SELECT (xact_commit + xact_rollback)::bigint AS n FROM pg_stat_database WHERE datname = $1', [
      BENCH_DATABASE,
    ]);
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

export async function runScale(
  server: BenchServer,
  scenarios: LoadScenario[],
  token: () => Promise<string>,
  tools: Tools,
  settings: Settings & { replicas: number; processes: number },
  log: (msg: string) => void,
): Promise<LayoutResult[]> {
  if (settings.replicas > 0 && !server.embedded) {
    throw new Error('--replicas needs the embedded bench server, which makes its standbys itself: unset DATABASE_URL');
  }
  const standbys: EmbeddedServer[] = [];
  try {
    for (let i = 1; i <= settings.replicas; i++) {
      const started = Date.now();
      const dir = path.join(projectRoot, '.data', `bench-postgres-replica-${i}`);
      standbys.push(await startEmbeddedStandby(server.embedded!, dir, `bench_replica_${i}`, { log }));
      log(`Hot standby ${i} ready in ${((Date.now() - started) / 1000).toFixed(1)} s (${path.relative(projectRoot, dir)})`);
    }
    const databases = [
      { name: 'primary', admin: server.adminUrl },
      ...standbys.map((s, i) => ({ name: `replica ${i + 1}`, admin: s.url('postgres') })),
    ];
    const results: LayoutResult[] = [];
    for (const [n, layout] of layouts(settings.replicas, settings.processes).entries()) {
      const label = `${layout.replicas} replica(s), ${layout.processes} process(es), RATE_LIMIT_STORE=${layout.rateLimitStore}`;
      log(`\n${label}`);
      const before = await Promise.all(databases.map((d) => transactions(d.admin)));
      const replicaUrls = standbys.slice(0, layout.replicas).map((s) => s.url(BENCH_DATABASE));
      const service = await startService(server.url, await token(), {
        WEB_CONCURRENCY: String(layout.processes),
        DATABASE_REPLICA_URLS: replicaUrls.join(','),
        RATE_LIMIT_STORE: layout.rateLimitStore,
      });
      const measured: LoadScenarioResult[] = [];
      try {
        // Every replica in the rotation before the load starts.
        for (let tries = 0; tries < 100; tries++) {
          const ready = (await fetchJson(`${service.base}/health/ready`, {})) as {
            databases: Array<{ role: string; in_rotation: boolean }>;
          };
          if (ready.databases.filter((d) => d.role === 'replica' && d.in_rotation).length === layout.replicas) break;
          await sleep(100);
        }
        // PostgreSQL alone (pgbench) once, in the first layout: the same SQL does not change with the layout.
        const layoutTools = n === 0 ? tools : {};
        for (const scenario of scenarios) measured.push(await runLoadScenario(scenario, service, server.url, layoutTools, settings, log));
      } finally {
        await service.stop();
      }
      await sleep(1000); // the backends' last reports
      const after = await Promise.all(databases.map((d) => transactions(d.admin)));
      const counts = databases.map((d, i) => ({ database: d.name, statements: after[i] - before[i] }));
      const total = counts.reduce((sum, c) => sum + c.statements, 0) || 1;
      const shares = counts.map((c) => ({ ...c, share: c.statements / total }));
      log(`  statements: ${shares.map((s) => `${s.database} ${s.statements} (${(100 * s.share).toFixed(0)}%)`).join(', ')}`);
      results.push({ ...layout, scenarios: measured, shares });
    }
    return results;
  } finally {
    for (const standby of standbys) await standby.stop();
  }
}

export function scaleTable(results: LayoutResult[]): string {
  const endpoints = [...new Set(results.flatMap((r) => r.scenarios.map((s) => s.endpoint)))];
  const head = ['layout', ...endpoints.map((e) => `${e} req/s (p99 ms)`), 'statements by database'];
  const rows = results.map((r) => {
    const cells = endpoints.map((e) => {
      const s = r.scenarios.find((x) => x.endpoint === e);
      return s ? `${s.http.rps.toFixed(0)} (${s.http.p99Ms.toFixed(1)})` : '-';
    });
    const shares = r.shares.map((s) => `${s.database} ${(100 * s.share).toFixed(0)}%`).join(', ');
    return [`${r.replicas} replica(s) × ${r.processes} process(es), ${r.rateLimitStore} limits`, ...cells, shares];
  });
  return [head, head.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
