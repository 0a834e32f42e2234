import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Statements prepared once per connection (DB_PREPARED_STATEMENTS). A page's statements are the same
 * few texts again and again with other values, and PostgreSQL parses and plans each one it is sent
 * unnamed: the admin pages' list and rule statements join up to ten tables, and planning one took up
 * to 9 ms, often more than running it (docs/runs/ADMIN-BENCHMARKS.md). A named statement is parsed
 * once on its connection (pg keeps track of which are); PostgreSQL plans its first five runs with their
 * values, then keeps one plan for all values when that plan is estimated no dearer (plan_cache_mode).
 *
 * Each connection names at most `limit` texts, the first it runs: texts that embed a page's offset
 * are many, and every prepared statement holds memory in its backend until the connection closes.
 * Past the limit, a new text runs unnamed, as before; 0 names none. A statement that comes named keeps
 * its name and is not counted: the API's answers bounded to one rider name theirs (src/api/v2/router.ts).
 */
const KEPT = Symbol('prepared statements');

interface Keeping {
  [KEPT]?: { limit: number; names: Set<string> };
}

/** Lets `client` keep up to `limit` named statements; called once per new connection. */
export function keepPrepared(client: pg.ClientBase, limit: number): void {
  if (limit > 0) (client as Keeping)[KEPT] = { limit, names: new Set() };
}

/** `query`, named by its text when `client` keeps prepared statements and has room for this one. */
export function prepared<Q extends pg.QueryConfig>(client: pg.ClientBase, query: Q): Q {
  const kept = (client as Keeping)[KEPT];
  if (!kept || query.name || !query.text) return query;
  const name = `p${createHash('sha1').update(query.text).digest('base64url')}`;
  if (!kept.names.has(name)) {
    if (kept.names.size >= kept.limit) return query;
    kept.names.add(name);
  }
  // A copy with the same prototype: a config may inherit its row mode and parsers (src/api/v2/send-json.ts).
  return Object.assign(Object.create(Object.getPrototypeOf(query) as object) as Q, query, { name });
}
