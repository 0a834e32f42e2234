import type { Server } from 'node:http';
import { createApp } from './app';
import { TokenCache } from './auth/tokens';
import { ConfigError, loadConfig } from './config';
import { openDatabase, type Database } from './db/bootstrap';
import { EmbeddedError } from './db/embedded';
import { connectKnex } from './db/knex';
import { projectRoot } from './paths';
import { pendingMigrations } from './db/migrate';
import { createPool } from './db/pool';
import { addressOf, ReadRouter, type ReadTarget } from './db/replicas';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = (message: string) => console.log(message);
  const database: Database = await openDatabase(config, log);
  let stopping = false;
  // While stopping, the embedded server may go first (Ctrl-C reaches it too): that is no news.
  const lost = (message: string) => (stopping ? undefined : console.error(message));
  const pool = createPool(database.url, config, lost);
  const streamPool = createPool(database.url, config, lost, 'streams');
  // Each replica gets pools of its own, sized as the primary's; reads go to them in turn (ReadRouter).
  const replicas: ReadTarget[] = database.replicaUrls.map((url, i) => ({
    name: `replica ${i + 1}`,
    role: 'replica',
    address: addressOf(url),
    queries: createPool(url, config, lost),
    streams: createPool(url, config, lost, 'streams'),
  }));
  const reads = new ReadRouter({ name: 'primary', role: 'primary', address: addressOf(database.url), queries: pool, streams: streamPool }, replicas, {
    ...config.replicas,
    log: (message) => (stopping ? undefined : log(message)),
  });
  await reads.start();
  if (!database.embedded) await warnIfNotMigrated(database.url, log);
  let tokens: TokenCache | undefined;
  if (config.auth.enabled) {
    tokens = new TokenCache(pool, config.auth.refreshMs, log);
    await tokens.start();
    if (!config.sessions.secret && !database.embedded) {
      console.warn('Note: SESSION_SECRET is not set, so supervisors are signed out whenever the service restarts.');
    }
  } else {
    console.warn('WARNING: AUTH=off: the API answers anyone who can reach it, without a token. Personal data is exposed.');
  }
  const app = createApp({ pool, streamPool, reads, config, tokens });

  const server: Server = app.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const base = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
    log(`Rider equipment service listening on ${base}`);
    log(`  Admin:    ${base}/admin`);
    log(`  API:      ${base}/v2   (reference: ${base}/docs)`);
    if (database.embedded) {
      const { port, dataDir, binDir } = database.embedded;
      log(`  Database: embedded PostgreSQL on 127.0.0.1:${port}, primary (data in ${dataDir})`);
      if (binDir || dataDir !== config.embedded.dir) {
        log(`    The postgres user cannot reach ${projectRoot}, so the server runs from ${binDir ?? 'the installed binaries'} with its data above.`);
      }
      for (const [i, replica] of (database.embeddedReplicas ?? []).entries()) {
        log(`  Database: embedded PostgreSQL on 127.0.0.1:${replica.port}, hot standby ${i + 1} (data in ${replica.dataDir})`);
      }
    } else {
      log(`  Database: ${addressOf(database.url)}, primary`);
      for (const replica of replicas) log(`  Database: ${replica.address}, ${replica.name}`);
    }
    if (replicas.length) {
      const ready = reads.status().filter((s) => s.role === 'replica' && s.in_rotation).length;
      log(`  Reads go to the ${replicas.length} replica(s) in turn (${ready} in the rotation now; see /health/ready), else to the primary`);
    }
    if (database.demoSupervisor) {
      log(`  Demo sign-in for /admin (new password at every start): ${database.demoSupervisor.username} / ${database.demoSupervisor.password}`);
    }
    if (database.demoToken) {
      log(`  Demo API token (new at every start): ${database.demoToken}`);
      log(`    curl -H "Authorization: Bearer ${database.demoToken}" ${base}/v2/questioner`);
    }
  });

  /** The embedded standbys first, then their primary. */
  const stopDatabases = async () => {
    for (const replica of database.embeddedReplicas ?? []) await replica.stop().catch(() => undefined);
    await database.embedded?.stop().catch(() => undefined);
  };
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: finishing requests in flight, then stopping`);
    setTimeout(() => {
      console.error(`Requests did not finish within ${config.shutdownTimeoutMs} ms; exiting anyway`);
      // The embedded server is stopped all the same (its fast shutdown ends the statements still running).
      void stopDatabases().finally(() => process.exit(1));
    }, config.shutdownTimeoutMs).unref();
    server.close(async () => {
      tokens?.stop();
      reads.stop();
      await Promise.all([pool, streamPool, ...replicas.flatMap((r) => [r.queries, r.streams])].map((p) => p.end())).catch(() => undefined);
      await stopDatabases();
      process.exit(0);
    });
    // A keep-alive connection whose last answer has just ended would otherwise hold close() open.
    setInterval(() => server.closeIdleConnections(), 200).unref();
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
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
