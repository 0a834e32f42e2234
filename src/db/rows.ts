import type pg from 'pg';
import { isAborted, whenAborted } from '../http/client-signal';
import { sendCancel } from './cancel';
import { ClientGone, type Reader } from './pool';
import { prepared } from './prepared';

/**
 * Runs one statement for a request and returns its rows. With the request's signal (clientSignal),
 * a client that leaves while the request waits for a connection starts nothing, and one that leaves
 * while the statement runs has it cancelled; either way this rejects with ClientGone.
 */
export async function queryRows<R = Record<string, unknown>>(
  pool: Reader,
  query: pg.QueryConfig | pg.QueryArrayConfig,
  signal?: AbortSignal,
): Promise<R[]> {
  const client = await pool.acquire(signal);
  const stopWatching = signal && whenAborted(signal, () => void sendCancel(client));
  let failure: unknown;
  let rows: R[] = [];
  try {
    rows = (await client.query(prepared(client, query as pg.QueryConfig))).rows as R[];
  } catch (error) {
    failure = error;
  } finally {
    stopWatching?.();
  }
  if (signal && isAborted(signal)) {
    // A cancel may still be on its way to this connection's backend: the connection is not reused.
    client.release(new ClientGone('before the answer was ready'));
    throw new ClientGone('before the answer was ready');
  }
  client.release(failure as Error | undefined);
  if (failure) throw failure;
  return rows;
}
