import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { createAdminRouter, type AdminDeps } from '../../src/admin/router';
import { requestId } from '../../src/http/request-id';
import { createApp } from '../../src/app';
import { TokenCache } from '../../src/auth/tokens';
import { loadConfig, type Config } from '../../src/config';
import { createPool, type Pool } from '../../src/db/pool';
import { appUrl, databaseUrl, testDatabases, useDatabase, type Database } from './databases';
import { eventually } from './wait';

export interface TestApp {
  app: Express;
  /** The service's pools connect as the production role (test/support/databases.ts: TEST_APP_ROLE). */
  pool: Pool;
  streamPool: Pool;
  adminPool: Pool;
  config: Config;
  /**
   * The database's owner, for what the test itself sets up: the company's data and the kept data its
   * systems would write, supervisors and tokens the owner's commands would make.
   */
  owner: Pool;
  logs: string[];
  tokens?: TokenCache;
  close: () => Promise<void>;
}

/**
 * `pool` as it is, except that its connections wait until `ready` settles (the database is made): testApp
 * is synchronous, and its pools connect only when a test first queries.
 * Every connection of the service's pools, for pool.query() and pool.connect() too, comes through acquire().
 */
function after(ready: Promise<unknown>, pool: Pool): Pool {
  const acquire = pool.acquire.bind(pool);
  pool.acquire = async (...args) => {
    await ready;
    return acquire(...args);
  };
  return pool;
}

function build(
  database: Database,
  env: Record<string, string>,
  tokens?: (pool: Pool, config: Config, log: (m: string) => void) => TokenCache,
): TestApp {
  // Test files share their databases and run side by side, so each app counts its rate limits alone
  // unless a test asks for the shared store (RATE_LIMIT_STORE: 'postgres').
  const config = loadConfig({ NODE_ENV: 'test', AUTH: 'off', RATE_LIMIT_STORE: 'memory', ...env });
  const ownerUrl = databaseUrl(process.env.TEST_ADMIN_URL!, testDatabases()[database]);
  const url = appUrl(ownerUrl);
  // The run's copy of the database is made now if this is its first use; a failure shows at the first query.
  const ready = useDatabase(database);
  ready.catch(() => undefined);
  const logs: string[] = [];
  const log = (message: string) => logs.push(message);
  const pool = after(ready, createPool(url, config, log));
  const streamPool = after(ready, createPool(url, config, log, 'streams'));
  const adminPool = after(ready, createPool(url, config, log, 'admin'));
  const owner = after(ready, createPool(ownerUrl, config, log));
  const cache = tokens?.(pool, config, log);
  const app = createApp({ pool, streamPool, adminPool, config, log, tokens: cache });
  const close = async () => {
    cache?.stop();
    await Promise.all([pool.end(), streamPool.end(), adminPool.end(), owner.end()]);
  };
  return { app, pool, streamPool, adminPool, config, owner, logs, tokens: cache, close };
}

/**
 * The real app on real pools over one of the run's test databases. Authentication is off unless
 * `env` turns it on (AUTH: 'on'); tests of access control use testAppWithAuth.
 */
export function testApp(database: Database = 'fixture', env: Record<string, string> = {}): TestApp {
  return build(database, env);
}

/**
 * The fixture and demo apps for a whole test file: built before its tests, closed after them. Read
 * them from the returned object inside tests (they do not exist yet when the file is loaded).
 */
export function useFixtureAndDemo(fixture: Database = 'fixture'): { fixture: TestApp; demo: TestApp } {
  const apps = {} as { fixture: TestApp; demo: TestApp };
  beforeAll(async () => {
    await Promise.all([useDatabase(fixture), useDatabase('demo')]);
    apps.fixture = testApp(fixture);
    apps.demo = testApp('demo');
  });
  afterAll(async () => {
    await apps.fixture.close();
    await apps.demo.close();
  });
  return apps;
}

/** The app with API tokens required, its token cache loaded. */
export async function testAppWithAuth(database: Database = 'fixture', env: Record<string, string> = {}): Promise<TestApp> {
  await useDatabase(database);
  const t = build(database, { AUTH: 'on', ...env }, (pool, config, log) => new TokenCache(pool, config.auth.refreshMs, log));
  await t.tokens!.start();
  return t;
}

/** Waits until every pooled connection is idle again (or fails after `ms`). */
export async function poolSettles(pool: Pool, ms = 5000): Promise<void> {
  await eventually(() => pool.totalCount === pool.idleCount && pool.queued === 0, {
    ms,
    what: `the pool settling (total ${pool.totalCount}, idle ${pool.idleCount}, waiting ${pool.queued} when it started)`,
  });
}

/** Serves an app on a free loopback port; returns its base address and a way to stop it. */
export async function serve(app: Express): Promise<{ base: string; close: () => Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves `t` on loopback for `work`, then closes the server and the app's pools, whatever happened. */
export async function servedApp<T>(t: TestApp, work: (server: { base: string }) => Promise<T>): Promise<T> {
  const server = await serve(t.app);
  try {
    return await work(server);
  } finally {
    await server.close();
    await t.close();
  }
}

/**
 * The admin router alone, as a supervisor limited to one 3PL sees it (`companyId`; Swift & Co, 1, by
 * default): a stand-in for the sign-in leaves the supervisor in res.locals, as the access layer does.
 */
export function scopedAdminApp(pool: Pool, companyId = '1', deps: Partial<AdminDeps> = {}): Express {
  return express()
    .use(requestId)
    .use((_req, res, next) => {
      res.locals.supervisor = { id: '1', username: 'swift-lead', companyId };
      res.locals.csrfToken = 'token-123';
      next();
    })
    .use('/admin', createAdminRouter({ pool, log: () => undefined, ...deps }));
}
