import pg from 'pg';
import type { Config } from '../config';

export type Pool = pg.Pool;

export const APPLICATION_NAME = 'rider-equipment-service';

/**
 * 'queries' serves answers made by one short statement. 'streams' serves whole-table answers, whose
 * one COPY statement may rightly run for minutes: a pool of its own gives it its own, longer
 * statement timeout, and keeps long downloads from taking every connection the short queries need.
 * Ids, counts and sums travel as exact text: bigint (20) and numeric (1700) keep pg's string form.
 */
export function createPool(url: string, config: Config, log: (msg: string) => void = console.error, purpose: 'queries' | 'streams' = 'queries'): pg.Pool {
  const streams = purpose === 'streams';
  const timeout = streams ? config.pool.streamStatementTimeoutMs : config.pool.statementTimeoutMs;
  const pool = new pg.Pool({
    connectionString: url,
    max: streams ? config.pool.streamMax : config.pool.max,
    connectionTimeoutMillis: config.pool.acquireTimeoutMs,
    idleTimeoutMillis: 30000,
    statement_timeout: timeout || undefined,
    application_name: streams ? `${APPLICATION_NAME}/streams` : APPLICATION_NAME,
    // Datetimes are written, and date filters read, in the service's zone.
    options: `-c TimeZone=${config.timeZone}`,
  });
  // An idle client whose server went away emits here; without a listener the process would exit.
  pool.on('error', (err) => log(`database connection lost: ${err.message}`));
  return pool;
}
