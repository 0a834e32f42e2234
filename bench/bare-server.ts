// The bench's yardstick: a bare Express 5 + pg server that answers the load scenarios' URLs with the
// service's own compiled SQL (given to it by the bench, see bareRoutes) as named prepared statements on
// a pool of 4, reads and sends the rows as the service does (its bytesQuery, answerPieces and sendJsonText), on a
// server made as the service makes its own (createExpressServer). Nothing
// else: no auth, validation, limits, logging, security headers or metrics. What the service adds per
// request is the gap between the two.
//
// Run by the bench as its own process: node dist/bench/bare-server.js, with BENCH_BARE_ROUTES (a JSON
// file of BareRoute), DATABASE_URL and PORT. Prints "listening" when ready.
import fs from 'node:fs';
import express from 'express';
import pg from 'pg';
import { answerPieces, bytesQuery, sendJsonText, createExpressServer, tuneV8 } from '../src/bench-entry';

export interface BareRoute {
  /** The path and fixed query string of a scenario, as requested (`/v2/riders?`, `/v2/rider-equipment-list?page=1&per_page=100`). */
  key: string;
  /** The query parameter drawn per request, if any, and the positions ($n - 1) it fills. */
  param?: string;
  positions: number[];
  name: string;
  text: string;
  values: unknown[];
  /** Rows are array elements (the streamed operations) rather than one whole answer (the page). */
  array: boolean;
}

function main(): void {
  tuneV8(); // as the service (src/runtime/v8.ts)
  const routes = new Map<string, BareRoute>();
  for (const route of JSON.parse(fs.readFileSync(process.env.BENCH_BARE_ROUTES!, 'utf8')) as BareRoute[]) routes.set(route.key, route);
  const drawnNames = new Set([...routes.values()].flatMap((route) => (route.param ? [route.param] : [])));
  // The service's session: its time zone (the kept list arrays are used only in theirs).
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: 4,
    options: `-c TimeZone=${process.env.TIME_ZONE || 'UTC'}`,
  });
  const app = express();
  app.set('etag', false);
  app.get(/^\/v2\//, async (req, res) => {
    const url = new URL(req.url, 'http://bare');
    const params = url.searchParams;
    let drawn: string | null = null;
    let route = routes.get(`${url.pathname}?${params.toString()}`);
    if (!route) {
      for (const name of drawnNames) {
        drawn = params.get(name);
        if (drawn === null) continue;
        params.delete(name);
        route = routes.get(`${url.pathname}?${params.toString()}`);
        break;
      }
    }
    if (!route) {
      res.status(404).end();
      return;
    }
    const values = route.values.slice();
    for (const i of route.positions) values[i] = drawn;
    const { rows } = await pool.query<[Buffer]>(bytesQuery(route.name, route.text, values));
    sendJsonText(
      res,
      answerPieces(
        route.array,
        rows.map((row) => row[0]),
      ),
    );
  });
  // Hosted as the service hosts its app (requests made with Express's prototypes): the gap to the
  // service is then what its features cost, not how Express is put on a socket (docs/runs/BENCHMARKS.md).
  const server = createExpressServer(app).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void pool.end().finally(() => process.exit(0));
  });
}

if (require.main === module) main();
