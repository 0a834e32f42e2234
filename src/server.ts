import cluster, { type Worker } from 'node:cluster';
import crypto from 'node:crypto';
import type { Server } from 'node:http';
import { createApp } from './app';
import { closePrinters } from './reports/pdf';
import { answerClientErrors } from './http/client-error';
import { createExpressServer } from './runtime/express-server';
import { tuneV8 } from './runtime/v8';
import { issueDemoCredentials, type DemoCredentials } from './auth/demo-credentials';
import { TokenCache } from './auth/tokens';
import { ConfigError, loadConfig, type Config } from './config';
import { EMBEDDED_DATABASE, openDatabase, type Database } from './db/bootstrap';
import { EmbeddedError } from './db/embedded';
import { connectKnex } from './db/knex';
import { projectRoot } from './paths';
import { pendingMigrations } from './db/migrate';
import { createPool } from './db/pool';
import { KeptApplier } from './db/kept-applier';
import { serveWorkerMetrics } from './metrics';
import { addressOf, ReadRouter, type ReadTarget } from './db/replicas';
import { readingsFromSupervisor, watchForWorkers } from './db/replica-lag';
import { Shutdown } from './shutdown';
import { embeddedPsql, urlPsql } from './db/psql-line';
import { AdminProcess, isAdminProcess, lowerPriority, serveHandedConnections } from './runtime/admin-process';

const log = (message: string) => console.log(message);

async function main(): Promise<void> {
  tuneV8();
  const config = loadConfig();
  // A worker's database is its supervisor's, passed in DATABASE_URL and DATABASE_REPLICA_URLS.
  if (cluster.isWorker) return serve(config, { url: config.databaseUrl!, replicaUrls: config.replicaUrls }, false);
  // The admin pages' process (src/runtime/admin-process.ts): its database is the listening process's.
  if (isAdminProcess()) {
    lowerPriority(config.adminProcess.nice);
    return serve(config, { url: config.databaseUrl!, replicaUrls: config.replicaUrls }, false, undefined, 'admin');
  }
  let demo: DemoCredentials | undefined;
  const database = await openDatabase(config, log, {
    demo: true,
    // The embedded demo's sign-in and API token, made anew at each start; none without sign-ins (AUTH=off).
    onDemo: async (url) => {
      if (config.auth.enabled) demo = await issueDemoCredentials(url);
    },
  });
  if (config.webConcurrency > 1) return supervise(config, database, demo);
  return serve(config, database, true, demo);
}

/** The start banner: where everything is, each database and its role, the demo's sign-in and token. */
function printBanner(config: Config, database: Database, port: number, demo: DemoCredentials | undefined): void {
  const base = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
  log(`Rider equipment service listening on ${base}${config.webConcurrency > 1 ? ` (${config.webConcurrency} worker processes)` : ''}`);
  log(`  Admin:    ${base}/admin`);
  log(`  API:      ${base}/v2/<operation>   (every operation and its use: ${base}/docs)`);
  if (database.embedded) {
    const { port: dbPort, dataDir, binDir } = database.embedded;
    log(`  Database: embedded PostgreSQL on 127.0.0.1:${dbPort}, primary (data in ${dataDir})`);
    log(`  psql:     ${embeddedPsql(dbPort, dataDir, EMBEDDED_DATABASE)}`);
    if (binDir || dataDir !== config.embedded.dir) {
      log(
        `    The postgres user cannot reach ${projectRoot}, so the server runs from ${binDir ?? 'the installed binaries'} with its data above.`,
      );
    }
    for (const [i, replica] of (database.embeddedReplicas ?? []).entries()) {
      log(`  Database: embedded PostgreSQL on 127.0.0.1:${replica.port}, hot standby ${i + 1} (data in ${replica.dataDir})`);
    }
  } else {
    log(`  Database: ${addressOf(database.url)}, primary`);
    log(`  psql:     ${urlPsql(database.url)}`);
    for (const [i, url] of database.replicaUrls.entries()) log(`  Database: ${addressOf(url)}, replica ${i + 1}`);
  }
  if (database.replicaUrls.length) log(`  Reads go to the replicas in the rotation, in turn (see /health/ready), else to the primary`);
  if (config.adminProcess.enabled)
    log(`  The admin pages run in a process of their own, at CPU niceness ${config.adminProcess.nice} (ADMIN_PROCESS, ADMIN_NICE)`);
  if (demo) {
    log(`  Demo sign-in for /admin (new password at every start): ${demo.supervisor.username} / ${demo.supervisor.password}`);
    log(`  Demo API token (new at every start): ${demo.token}`);
    log(`    curl -H "Authorization: Bearer ${demo.token}" ${base}/v2/questioner`);
  }
  log(`  Stop:     Ctrl-C here, or from another shell: kill -INT ${process.pid}`);
}

/** The embedded standbys first, then their primary (nothing for a database that is not embedded). */
async function stopDatabases(database: Database): Promise<void> {
  for (const replica of database.embeddedReplicas ?? []) await replica.stop().catch(() => undefined);
  await database.embedded?.stop().catch(() => undefined);
}

/**
 * WEB_CONCURRENCY > 1: this process owns the databases and runs that many HTTP workers on one port
 * (node:cluster), replacing any that dies. It checks the replicas' lag for all the workers, which read
 * by its readings (src/db/replica-lag.ts). SIGTERM or SIGINT stops every worker the way a single
 * process stops (src/shutdown.ts), then the databases.
 */
async function supervise(config: Config, database: Database, demo: DemoCredentials | undefined): Promise<void> {
  const env = {
    DATABASE_URL: database.url,
    DATABASE_REPLICA_URLS: database.replicaUrls.join(','),
    // One secret for all: a session signed by one worker is read by the others.
    SESSION_SECRET: config.sessions.secret ?? crypto.randomBytes(32).toString('hex'),
  };
  if (!config.sessions.secret && !database.embedded) {
    console.warn('Note: SESSION_SECRET is not set, so supervisors are signed out whenever the service restarts.');
  }
  let stopping = false;
  let listening = 0;
  const started = new Map<number, number>();
  const fork = () => {
    const worker = cluster.fork(env);
    started.set(worker.id, Date.now());
  };
  // The banner once every first worker listens: the service is then all there.
  cluster.on('listening', (_worker, address) => {
    if (++listening === config.webConcurrency) printBanner(config, database, address.port, demo);
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    // One that dies at once (a bad setting, the database away) is not restarted in a tight loop.
    const lived = Date.now() - (started.get(worker.id) ?? 0);
    started.delete(worker.id);
    console.error(`Worker ${worker.process.pid} exited (${signal ?? `status ${code}`}); starting another${lived < 5000 ? ' in 1 s' : ''}`);
    setTimeout(() => (stopping ? undefined : fork()), lived < 5000 ? 1000 : 0);
  });
  serveWorkerMetrics();
  // One watch for every worker: a client's reads cannot go back in time from one worker to the next.
  const lag = watchForWorkers(
    database.replicaUrls.map((url, i) => ({ name: `replica ${i + 1}`, address: addressOf(url), url })),
    { ...config.replicas, primaryUrl: database.url, log: (message) => (stopping ? undefined : log(message)) },
  );
  await lag.start();
  for (let i = 0; i < config.webConcurrency; i++) fork();

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    lag.stop();
    log(
      `${signal}: the workers answer 503 on /health/ready, accept new connections for ${config.shutdownDrainMs} ms more ` +
        `(SHUTDOWN_DRAIN_MS), then give requests in flight ${config.shutdownTimeoutMs} ms (SHUTDOWN_TIMEOUT_MS), then stop`,
    );
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w));
    // A worker still loading its code when told to stop ends by the signal itself: it had nothing in flight.
    const exits = workers.map(
      (worker) =>
        new Promise<number>((resolve) =>
          worker.once('exit', (code: number | null, sig: string | null) => resolve(sig === 'SIGTERM' ? 0 : (code ?? 1))),
        ),
    );
    for (const worker of workers) worker.process.kill('SIGTERM');
    // Each worker keeps SHUTDOWN_DRAIN_MS and SHUTDOWN_TIMEOUT_MS itself; this is its last resort (and
    // the one stop that is not orderly: status 1).
    const bound = config.shutdownDrainMs + config.shutdownTimeoutMs + 5000;
    const late = setTimeout(() => {
      console.error(`Workers did not stop within ${bound} ms; ending them`);
      for (const worker of workers) worker.process.kill('SIGKILL');
    }, bound);
    void Promise.all(exits).then(async (codes) => {
      clearTimeout(late);
      await stopDatabases(database);
      log('Stopped.');
      process.exit(codes.every((code) => code === 0) ? 0 : 1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * One HTTP server process: the only one, or a worker of supervise(), or the admin pages' process
 * (`role` 'admin': it serves the connections the listening process hands it). `owner`: it owns the
 * databases and prints the banner, with the demo's credentials when it issued them.
 */
async function serve(config: Config, database: Database, owner: boolean, demo?: DemoCredentials, role?: 'admin'): Promise<void> {
  // One secret for both processes: a session made on a page of either is read by the other.
  if (owner && config.adminProcess.enabled && !config.sessions.secret)
    config = { ...config, sessions: { ...config.sessions, secret: crypto.randomBytes(32).toString('hex') } };
  const adminProcess =
    owner && config.adminProcess.enabled
      ? new AdminProcess({
          script: __filename,
          nice: config.adminProcess.nice,
          env: {
            DATABASE_URL: database.url,
            DATABASE_REPLICA_URLS: database.replicaUrls.join(','),
            SESSION_SECRET: config.sessions.secret!,
          },
          log: (message) => console.error(message),
        })
      : undefined;
  let stopping = false;
  // A signal before the server listens (a worker told to stop while it starts) has nothing to drain.
  let stop = (signal: string) => {
    stopping = true;
    if (owner) log(`${signal}: stopping before the service started`);
    void (owner ? stopDatabases(database) : Promise.resolve()).finally(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // While stopping, the embedded server may go first (Ctrl-C reaches it too): a connection it closes or a
  // token reload it refuses is no news. Its backends may even say so before this process has run its own
  // signal handler, so such a message is told a moment later, unless the service is stopping by then.
  const unlessStopping = (write: (message: string) => void) => (message: string) =>
    void setTimeout(() => (stopping ? undefined : write(message)), 200).unref();
  const name = role === 'admin' ? `[admin pages ${process.pid}]` : `[worker ${process.pid}]`;
  const lost = unlessStopping((message) => console.error(owner ? message : `${name} ${message}`));
  const pool = createPool(database.url, config, lost);
  const streamPool = createPool(database.url, config, lost, 'streams');
  const adminPool = createPool(database.url, config, lost, 'admin');
  // Each replica gets pools of its own, sized as the primary's; reads go to them in turn (ReadRouter).
  const replicas: ReadTarget[] = database.replicaUrls.map((url, i) => ({
    name: `replica ${i + 1}`,
    role: 'replica',
    address: addressOf(url),
    queries: createPool(url, config, lost),
    streams: createPool(url, config, lost, 'streams'),
    admin: createPool(url, config, lost, 'admin'),
  }));
  const reads = new ReadRouter(
    { name: 'primary', role: 'primary', address: addressOf(database.url), queries: pool, streams: streamPool, admin: adminPool },
    replicas,
    {
      ...config.replicas,
      // A worker reads by its supervisor's checks (told), and says only what it meets itself.
      told: cluster.isWorker,
      log: (message) => (stopping ? undefined : log(owner ? message : `${name} ${message}`)),
    },
  );
  if (cluster.isWorker) readingsFromSupervisor(reads);
  await reads.start();
  if (owner && !database.embedded) await warnIfNotMigrated(database.url, log);
  let tokens: TokenCache | undefined;
  if (config.auth.enabled) {
    tokens = new TokenCache(pool, config.auth.refreshMs, unlessStopping(log));
    await tokens.start();
    if (owner && !config.sessions.secret && !database.embedded) {
      console.warn('Note: SESSION_SECRET is not set, so supervisors are signed out whenever the service restarts.');
    }
  } else if (owner || cluster.worker?.id === 1) {
    console.warn('WARNING: AUTH=off: the API answers anyone who can reach it, without a token. Personal data is exposed.');
  }
  // The kept data is written from the change log here, on the primary (migration 018); not by the admin pages'.
  const applier =
    config.keptApplyMs > 0 && role !== 'admin' ? new KeptApplier(database.url, { intervalMs: config.keptApplyMs, log: lost }) : undefined;
  applier?.start();
  const shutdown = new Shutdown({
    drainMs: config.shutdownDrainMs,
    timeoutMs: config.shutdownTimeoutMs,
    owner,
    log: (message) => log(owner ? message : `${name} ${message}`),
    cleanUp: async () => {
      tokens?.stop();
      // The admin pages' process drains as this one does, from the same signal.
      if (adminProcess) await settledWithin(adminProcess.stop(), 2000);
      reads.stop();
      await settledWithin(applier?.stop() ?? Promise.resolve(), 1000);
      const pools = [pool, streamPool, adminPool, ...replicas.flatMap((r) => [r.queries, r.streams, ...(r.admin ? [r.admin] : [])])];
      // A cut stream gives its connection back once its statement is cancelled; none waits past a second.
      await settledWithin(Promise.all(pools.map((p) => p.end())), 1000);
      await settledWithin(closePrinters(), 1000); // the PDF printers' Chromium, if one is running
      if (owner) {
        await stopDatabases(database);
        log('Stopped.');
      }
    },
  });
  const app = createApp({
    pool,
    streamPool,
    adminPool,
    reads,
    config,
    tokens,
    stopping: () => shutdown.stopping,
    keptApplier: applier?.status,
    adminProcess,
  });

  const server: Server = answerClientErrors(createExpressServer(app));
  if (role === 'admin') {
    // Its own loopback port, unused: the connections come from the listening process.
    serveHandedConnections(server, () => stop('the listening process is gone'));
    server.listen(0, '127.0.0.1');
  } else {
    adminProcess?.route(server);
    // A port another program holds, or one this user may not open: said in a line, and the service stops
    // (its embedded database too) with status 1.
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE' && error.code !== 'EACCES') throw error;
      console.error(
        error.code === 'EADDRINUSE'
          ? `Port ${config.port} on ${config.host} is in use by another program: stop it, or start on another port (PORT=${config.port + 1} npm start).`
          : `Port ${config.port} on ${config.host} may not be opened by this user: start on a port above 1023 (PORT=3000 npm start).`,
      );
      stopping = true;
      void adminProcess?.stop();
      tokens?.stop();
      // Nothing was served: nothing to drain.
      void (owner ? stopDatabases(database) : Promise.resolve()).finally(() => process.exit(1));
    });
    server.listen(config.port, config.host, () => {
      const address = server.address();
      if (owner) printBanner(config, database, typeof address === 'object' && address ? address.port : config.port, demo);
      adminProcess?.start();
    });
  }
  shutdown.track(server);

  stop = (signal: string) => {
    stopping = true;
    void adminProcess?.stop();
    // The tokens held now serve the last requests; a reload could only meet a database that is going.
    tokens?.stop();
    shutdown.begin(signal);
  };
}

/** Waits for `work`, but no longer than `ms`. */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** An external database is never migrated behind its owner's back, but a forgotten migration is named. */
async function warnIfNotMigrated(url: string, log: (message: string) => void): Promise<void> {
  const knex = connectKnex(url);
  try {
    const pending = await pendingMigrations(knex);
    if (pending.length) log(`Warning: ${pending.length} migration(s) not applied (${pending.join(', ')}); run npm run db:migrate`);
  } catch (error) {
    // The service starts anyway and answers 503 until the database is reachable.
    log(`Warning: the database is not reachable yet (${(error as Error).message})`);
  } finally {
    await knex.destroy();
  }
}

main().catch((error) => {
  if (error instanceof ConfigError) console.error(`Configuration error: ${error.message}`);
  else if (error instanceof EmbeddedError) console.error(error.message);
  else console.error(error);
  process.exit(1);
});
