import pg from 'pg';
import type { Config } from '../config';

export type Pool = pg.Pool;

// Ids, counts and sums travel as exact text: bigint (20) and numeric (1700) keep pg's string form.
export function createPool(url: string, config: Config, log: (msg: string) => void = console.error): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: config.pool.max,
    connectionTimeoutMillis: config.pool.acquireTimeoutMs,
    idleTimeoutMillis: 30000,
    statement_timeout: config.pool.statementTimeoutMs || undefined,
    application_name: 'rider-equipment-service',
    // Datetimes are written, and date filters read, in the service's zone.
    options: `-c TimeZone=${config.timeZone}`,
  });
  // An idle client whose server went away emits here; without a listener the process would exit.
  pool.on('error', (err) => log(`database connection lost: ${err.message}`));
  return pool;
}
