import type { Express } from 'express';
import { createApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { createPool, type Pool } from '../../src/db/pool';
import { databaseUrl, testDatabases } from './databases';

export interface TestApp {
  app: Express;
  pool: Pool;
  streamPool: Pool;
  config: Config;
  logs: string[];
  close: () => Promise<void>;
}

/** The real app on a real pool over one of the run's test databases. */
export function testApp(database: keyof ReturnType<typeof testDatabases> = 'fixture', env: Record<string, string> = {}): TestApp {
  const config = loadConfig({ NODE_ENV: 'test', ...env });
  const url = databaseUrl(process.env.TEST_ADMIN_URL!, testDatabases()[database]);
  const logs: string[] = [];
  const pool = createPool(url, config, (message) => logs.push(message));
  const streamPool = createPool(url, config, (message) => logs.push(message), 'streams');
  const app = createApp({ pool, streamPool, config, log: (message) => logs.push(message) });
  return { app, pool, streamPool, config, logs, close: async () => void (await Promise.all([pool.end(), streamPool.end()])) };
}

/** Waits until every pooled connection is idle again (or fails after `ms`). */
export async function poolSettles(pool: Pool, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (pool.totalCount !== pool.idleCount || pool.waitingCount > 0) {
    if (Date.now() > deadline) {
      throw new Error(`pool did not settle: total ${pool.totalCount}, idle ${pool.idleCount}, waiting ${pool.waitingCount}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
