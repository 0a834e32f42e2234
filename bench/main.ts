// npm run bench -- [options]: the benchmark at production size. Loads (or reuses) a dataset in its own
// database, runs the real service as a separate process, measures it on loopback with autocannon,
// measures PostgreSQL alone on the same SQL (pgbench, psql COPY), prints tables with the
// targets and writes everything to bench-results/<timestamp>.json. See docs/runs/BENCHMARKS.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../src/bench-entry';
import { runScale, scaleTable, type LayoutResult } from './scale';
import { ABORT_PATHS, abortTable, runAbortScenario, type AbortResult } from './abort';
import { ensureDataset, issueBenchToken, openBenchServer, type BenchServer, type DatasetInfo } from './dataset';
import { explainAll } from './explain';
import { fetchJson, wrkCommand } from './http-load';
import { parseOptions, type BenchOptions } from './options';
import { findPgTool } from './pg-side';
import * as report from './report';
import { runLoadScenario, runStreamScenario, type LoadScenarioResult, type StreamScenarioResult, type Tools } from './runner';
import { bareRoute, loadScenarios, pageFilters, PER_PAGE, STREAM_PATHS } from './scenarios';
import { children, serverNodeFlags, startBareServer, startService, type RunningService } from './service';
import { runStartup, type StartupResult } from './startup';
import { profileTable, runProfile, type ProfileResult } from './profile';
import { runAdmin, type AdminResult } from './admin';
import { adminTable, adminVerdicts, isolationTable, teamTable } from './admin-report';
import { gitAtStart } from './main-git';
import { BENCH_DOCS_DIR, recordInDocs, type RecordedSection } from './record';
import { QUEUE_BATCH_RUNS, QUEUE_PAGE_RUNS, queueTable } from './admin-queue';
import { adminCsvTable } from './admin-csv';

/** Settings of the service that change what the admin group measures, named in the recorded command when set. */
const SERVICE_SETTINGS = ['ADMIN_PROCESS', 'ADMIN_NICE', 'ADMIN_POOL_MAX', 'DB_POOL_MAX', 'WEB_CONCURRENCY'];

const log = (message: string) => console.log(message);
/** The service settings of the last start without a scenario's own settings, for the JSON results. */
let serviceSettings: Record<string, string> | undefined;

/** One case of the abandoned downloads: the service's settings for it and its stream pool's size. */
interface AbortCase extends AbortResult {
  settings: Record<string, string>;
  streamPoolMax: number;
}

/** Runs `work` on a fresh service process; `extra`: settings of this scenario only (see startService). */
async function withService<T>(url: string, work: (service: RunningService) => Promise<T>, extra: Record<string, string> = {}): Promise<T> {
  const service = await startService(url, await issueBenchToken(url), extra);
  if (Object.keys(extra).length === 0) serviceSettings = service.settings;
  const settings = Object.entries(service.settings)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  log(
    `Service pid ${service.pid} (node ${[...serverNodeFlags, 'dist/src/server.js'].join(' ')}) on ${service.base} (${settings}; pool sizes as configured, defaults 4 for queries and 10 for streams)`,
  );
  try {
    return await work(service);
  } finally {
    await service.stop();
  }
}

/** Runs one part of the bench; a failure is reported and recorded, and the other parts still run. */
async function attempt(what: string, errors: string[], work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const message = `${what} failed: ${error instanceof Error ? error.message : String(error)}`;
    errors.push(message);
    console.error(message);
  }
}

async function measure(options: BenchOptions, server: BenchServer | undefined, tools: Tools) {
  const load: LoadScenarioResult[] = [];
  const streams: StreamScenarioResult[] = [];
  const abort: AbortCase[] = [];
  const errors: string[] = [];
  let startup: StartupResult | undefined;
  let explain: string | undefined;
  let dataset: DatasetInfo | undefined;
  let scale: LayoutResult[] | undefined;
  let profile: ProfileResult[] | undefined;
  let admin: AdminResult | undefined;

  if (server && options.profile) {
    dataset = await ensureDataset(server, options, log);
    const ranges = { riders: dataset.riderIds, countries: dataset.countryIds };
    const all = loadScenarios(ranges, { last: 1, activeLast: 1, company: '', companyLast: 1 });
    const scenarios = [all.find((s) => s.group === 'rider' && s.path === '/assign-list')!, all.find((s) => s.group === 'page')!];
    log(`\nProfiles: ${options.connections} connections, ${options.duration} s after ${options.warmup} s of warm-up, a fresh process each`);
    await attempt('the profiles', errors, async () => {
      profile = await runProfile(server.url, await issueBenchToken(server.url), scenarios, options, log);
    });
    return { dataset, load, streams, abort, startup, explain, errors, scale, profile, admin };
  }

  if (server && (options.replicas > 0 || options.processes > 1)) {
    // The layouts replace the other groups: the same rider scenarios, spread several ways.
    dataset = await ensureDataset(server, options, log);
    const ranges = { riders: dataset.riderIds, countries: dataset.countryIds };
    const scenarios = loadScenarios(ranges, { last: 1, activeLast: 1, company: '', companyLast: 1 }).filter((s) => s.group === 'rider');
    log(`\nLayouts: rider scenarios, ${options.connections} connections, ${options.duration} s each`);
    await attempt('the layouts', errors, async () => {
      scale = await runScale(server, scenarios, () => issueBenchToken(server.url), tools, options, log);
    });
    return { dataset, load, streams, abort, startup, explain, errors, scale, profile, admin };
  }
  if (server) {
    dataset = await ensureDataset(server, options, log);
    const c = dataset.counts;
    log(
      `Dataset: ${c.riders} riders, ${c.assignments} assignments, ${c.patrol_checks} checks, ${c.patrol_check_answers} answers; PostgreSQL ${dataset.serverVersion}`,
    );
    if (!dataset.riderIds.contiguous)
      log('Warning: rider ids are not contiguous; random ids in their range may miss (pgbench and HTTP alike)');
    const ranges = { riders: dataset.riderIds, countries: dataset.countryIds };
    const groups = (['rider', 'date', 'page'] as const).filter((g) => options.groups.has(g));
    if (groups.length) {
      await attempt('the request scenarios', errors, () =>
        withService(server.url, async (service) => {
          const list = async (query: Record<string, string>) => {
            const params = new URLSearchParams({ ...query, per_page: String(PER_PAGE) });
            return (
              (await fetchJson(`${service.base}/v2/rider-equipment-list?${params}`, service.headers)) as Array<{
                last_page: number;
                data: Array<{ '3pl_name': string }>;
              }>
            )[0];
          };
          const first = await list({});
          const filters = pageFilters(first.data[0]['3pl_name']);
          const pages = {
            last: first.last_page,
            activeLast: (await list(filters.active)).last_page,
            company: filters.company['3pl_name'],
            companyLast: (await list(filters.company)).last_page,
          };
          const scenarios = loadScenarios(ranges, pages).filter((s) => options.groups.has(s.group));
          // The bare server answers what the service reads at once (rider-bounded answers and pages).
          const bareScenarios = scenarios.filter((s) => s.group !== 'date');
          const bare = bareScenarios.length
            ? await startBareServer(server.url, await Promise.all(bareScenarios.map(bareRoute)))
            : undefined;
          if (bare)
            log(`Bare server pid ${bare.pid} (bench/bare-server.ts: Express and pg, the service's SQL, a pool of 4) on ${bare.base}`);
          try {
            for (const group of groups) {
              const connections = group === 'date' ? options.dateConnections : options.connections;
              log(`\n${group} scenarios: ${connections} connections, ${options.duration} s each`);
              for (const scenario of scenarios.filter((s) => s.group === group)) {
                await attempt(`${group} /v2${scenario.path}`, errors, async () => {
                  const bareBase = bareScenarios.includes(scenario) ? bare?.base : undefined;
                  load.push(await runLoadScenario(scenario, service, server.url, tools, options, log, bareBase));
                });
              }
            }
          } finally {
            await bare?.stop();
          }
          if (options.explain) await attempt('--explain', errors, async () => void (explain = await explainAll(server.url, scenarios)));
        }),
      );
    }
    if (options.groups.has('stream')) {
      log(`\nFull streams: 1 connection, ${options.streamRuns} runs each, a fresh service process`);
      await attempt('the full streams', errors, () =>
        withService(server.url, async (service) => {
          for (const p of STREAM_PATHS) streams.push(await runStreamScenario(p, service, server.url, tools, options, log));
        }),
      );
    }
    if (options.groups.has('abort')) {
      // The defaults (one token may stream 2 at once, the rest are refused), then enough per token
      // that all 40 downloads reach the stream pool, whose bound and the cancels are then measured.
      const perPath = 20;
      const fromEnv = process.env.STREAMS_PER_TOKEN;
      const cases: Array<{ label: string; extra: Record<string, string> }> = [
        {
          label: fromEnv ? `as started (STREAMS_PER_TOKEN=${fromEnv} from the environment)` : 'defaults (STREAMS_PER_TOKEN=2)',
          extra: { STREAMS_PER_TOKEN: fromEnv ?? '2' },
        },
        { label: 'STREAMS_PER_TOKEN=40', extra: { STREAMS_PER_TOKEN: '40' } },
      ];
      log(
        `\nAbandoned downloads: ${ABORT_PATHS.length * perPath} full downloads (${ABORT_PATHS.join(', ')}) dropped after 0.3-0.5 s, a fresh service process per case`,
      );
      for (const c of cases) {
        await attempt(`abandoned downloads, ${c.label}`, errors, () =>
          withService(
            server.url,
            async (service) => {
              const result = await runAbortScenario(service.base, service.headers, server.url, c.label, perPath);
              const streamPoolMax = Number(service.settings.DB_STREAM_POOL_MAX ?? 10);
              abort.push({ ...result, settings: service.settings, streamPoolMax });
              const statuses = Object.entries(result.statuses)
                .map(([s, n]) => `${n}× ${s}`)
                .join(', ');
              log(
                `  ${c.label}: ${statuses}; at most ${result.maxRunning} streaming statements at once (pool ${streamPoolMax}), ${result.runningAfter1s} still running 1 s after, ${result.runningAfter5s} 5 s after`,
              );
              for (const line of result.stillRunning) log(`    still running 1 s after: ${line}`);
            },
            c.extra,
          ),
        );
      }
    }
  }
  if (server && dataset && options.groups.has('admin')) {
    const d = dataset;
    log(`\nAdmin pages at ${options.riders} and ${options.compareRiders} riders`);
    await attempt('the admin pages', errors, async () => void (admin = await runAdmin(server, d, options, log)));
  }
  if (options.groups.has('startup')) {
    log('\nStartup of the embedded demo');
    await attempt('the startup scenario', errors, async () => void (startup = await runStartup(log)));
  }
  return { dataset, load, streams, abort, startup, explain, errors, scale, profile, admin };
}

function printAndSave(
  options: BenchOptions,
  server: BenchServer | undefined,
  tools: Tools,
  started: Date,
  results: Awaited<ReturnType<typeof measure>>,
): void {
  const { load, streams, abort, startup } = results;
  // The service's settings given in the environment (it inherits it) are part of the command run.
  const settings = SERVICE_SETTINGS.filter((name) => process.env[name]).map((name) => `${name}=${process.env[name]} `);
  const command = `${settings.join('')}npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const verdicts = [
    ...load.map(report.riderVerdict).filter((v): v is report.Verdict => v !== undefined),
    ...report.pageVerdicts(load.filter((r) => r.group === 'page')),
    ...streams.flatMap(report.streamVerdicts),
    ...abort.flatMap((a) => report.abortVerdicts(a, a.streamPoolMax)),
    ...(startup ? [report.startupVerdict(startup)] : []),
    ...(results.admin ? adminVerdicts(results.admin) : []),
  ];
  const out: string[] = [`\n## Results of \`${command}\``, ''];
  const where =
    results.dataset && server
      ? `${results.dataset.counts.riders} riders on the ${server.description}, PostgreSQL ${results.dataset.serverVersion}; `
      : '';
  const repeat = options.repeat > 1 ? `, median of ${options.repeat}` : '';
  const code = `commit ${gitAtStart.commit.slice(0, 7)}${gitAtStart.changedFiles ? ` with ${gitAtStart.changedFiles} changed files` : ''}`;
  const generator = wrkCommand ? 'wrk' : 'autocannon (wrk not installed)';
  out.push(
    `${code}; ${where}${options.connections} connections, ${options.duration} s per scenario${repeat}, load from ${generator}; ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end.`,
  );
  const sections: RecordedSection[] = [];
  // `recorded`: what --record writes into docs/runs/BENCHMARKS.md, when shorter than what is printed.
  const section = (key: string, title: string, body: string, recorded = body) => {
    out.push('', `### ${title}`, '', body);
    sections.push({ key, title, body: recorded });
  };
  const byGroup = (g: string) => load.filter((r) => r.group === g);
  if (byGroup('rider').length) section('rider', 'Filtered by a random rider', report.loadTable(byGroup('rider')));
  if (results.scale) {
    section('layouts', 'Layouts: replicas × processes (rider scenarios)', scaleTable(results.scale));
    const first = results.scale[0];
    if (first)
      section(
        'layouts-pgbench',
        `PostgreSQL alone on the same SQL (pgbench, measured in the first layout)`,
        report.loadTable(first.scenarios),
      );
  }
  if (results.profile)
    section(
      'profile',
      'CPU per request by component, µs (node --cpu-prof), service against the bare server',
      profileTable(results.profile),
      profileTable(results.profile, 10),
    );
  if (byGroup('date').length)
    section('date', `One week by date (${options.dateConnections} connections)`, report.loadTable(byGroup('date')));
  if (byGroup('page').length) section('page', '/v2/rider-equipment-list pages', report.pageTable(byGroup('page')));
  if (streams.length) section('streams', `Full streams (median of ${options.streamRuns}; RSS: the largest)`, report.streamTable(streams));
  if (abort.length) section('abort', 'Abandoned downloads', abortTable(abort, [...new Set(abort.map((a) => a.streamPoolMax))].join('/')));
  if (startup) section('startup', 'Startup', report.startupTable(startup));
  if (results.admin?.pages.length)
    section(
      'admin-pages',
      `Admin pages, signed in (median and p95 of ${results.admin.requests} sequential requests, and of ${results.admin.connections} concurrent clients × ${Math.ceil(results.admin.requests / results.admin.connections)}; ratio: median at ${results.admin.riders} over ${results.admin.compareRiders} riders)`,
      adminTable(results.admin),
    );
  if (results.admin?.isolation)
    section(
      'admin-isolation',
      `The API beside slow admin pages (${results.admin.isolation.apiPath} by a random rider, ${results.admin.isolation.connections} connections; slow pages: ${results.admin.isolation.slowPages.join(', ')})`,
      isolationTable(results.admin),
    );
  if (results.admin?.team)
    section(
      'admin-team',
      `Supervisors at once (${results.admin.team.supervisors} on ${results.admin.team.pages} random pages, ${results.admin.team.seconds} s each part)`,
      teamTable(results.admin),
    );
  if (results.admin?.queue)
    section(
      'admin-queue',
      `The work queue for a team (signed in; pages: median and p95 of ${QUEUE_PAGE_RUNS} after one unmeasured; the batch: median of ${QUEUE_BATCH_RUNS})`,
      queueTable(results.admin.queue),
    );
  if (results.admin?.csv)
    section(
      'admin-csv',
      `The admin lists' CSVs (no filter, default order; median of ${options.streamRuns}, each download beside psql's COPY of the same rows in one statement)`,
      adminCsvTable(results.admin.csv),
    );
  // The recorded targets are a whole run's: a run of the admin group alone (the team, the queue, the CSVs)
  // prints its own but leaves that table as it is; its tables say pass or fail themselves.
  if (verdicts.length && load.length) section('targets', 'Targets', report.verdictTable(verdicts));
  else if (verdicts.length) out.push('', '### Targets', '', report.verdictTable(verdicts));
  if (!tools.pgbench) out.push('', 'pgbench was not found (PATH, /usr/lib/postgresql/*/bin): no PostgreSQL-alone figures or ratios.');
  if (!tools.psql) out.push('', 'psql was not found (PATH, /usr/lib/postgresql/*/bin): no COPY comparison.');
  if (results.errors.length) out.push('', '### Errors', '', ...results.errors.map((e) => `- ${e.split('\n')[0]}`));
  log(out.join('\n'));
  if (options.record && results.dataset) {
    const day = started.toISOString().slice(0, 10);
    const header = `\`${command}\` at ${code} on ${day}; ${where}${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end.`;
    const { written, missing } = recordInDocs(path.join(projectRoot, BENCH_DOCS_DIR), sections, results.dataset.counts.riders, header);
    log(
      `\n--record: docs/ ${written.length ? `regions written: ${written.join(', ')}` : 'unchanged'}${missing.length ? `; no region for ${missing.join(', ')}` : ''}`,
    );
  }

  const dir = path.join(projectRoot, 'bench-results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const file = path.join(dir, `${stamp}.json`);
  const { explain, ...measured } = results;
  const json = {
    command,
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    git: gitAtStart,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryMB: Math.round(os.totalmem() / 1048576),
      loadAverageAtEnd: os.loadavg(),
      node: process.version,
    },
    options: { ...options, groups: [...options.groups] },
    database: server?.description,
    service: serviceSettings,
    tools: { pgbench: tools.pgbench?.version, psql: tools.psql?.version, loadGenerator: wrkCommand ?? 'autocannon' },
    targets: report.TARGETS,
    verdicts,
    ...measured,
  };
  fs.writeFileSync(file, JSON.stringify(json, null, 2) + '\n');
  log(`\nResults written to ${path.relative(projectRoot, file)}`);
  if (explain) {
    fs.writeFileSync(path.join(dir, `${stamp}-explain.txt`), explain);
    log(`Plans written to ${path.relative(projectRoot, path.join(dir, `${stamp}-explain.txt`))}`);
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = new Date();
  const tools: Tools = { pgbench: findPgTool('pgbench'), psql: findPgTool('psql') };
  if (!tools.pgbench)
    log('pgbench not found on PATH nor in /usr/lib/postgresql/*/bin: PostgreSQL-alone figures and ratios will be skipped.');
  if (!tools.psql) log('psql not found on PATH nor in /usr/lib/postgresql/*/bin: the COPY comparison will be skipped.');

  // The startup scenario alone needs no dataset.
  const needsData = [...options.groups].some((g) => g !== 'startup');
  const server = needsData ? await openBenchServer(log) : undefined;
  // Interrupted: stop what was started (service, pgbench, psql, the embedded server), then exit.
  const interrupt = (signal: string) => {
    log(`\n${signal}: stopping`);
    for (const child of children) child.kill('SIGTERM');
    void (server?.embedded?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', () => interrupt('SIGINT'));
  process.once('SIGTERM', () => interrupt('SIGTERM'));
  try {
    const results = await measure(options, server, tools);
    printAndSave(options, server, tools, started, results);
    if (results.errors.length) process.exitCode = 1;
  } finally {
    await server?.embedded?.stop();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
