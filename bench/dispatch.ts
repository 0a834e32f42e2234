// What an Express Router's matching costs an API answer, on the same requests: `node dist/bench/dispatch.js
// --url <database URL> [--seconds S] [--runs N] [--connections C]`. It decided how the API dispatches
// (src/runtime/README.md): the API was one hand-written function then, and the same API reached through
// a Router with one route per operation in front of it was as fast; the API is now that Router.
//
// Two servers in child processes of their own, each the API as the service mounts it (AUTH off, so
// that the token's work is not in either): "as-is", the API at /v2; "behind-router", the same API
// reached through one more Router with one route per operation, the matching a Router adds. Each run
// measures both in turn, alternating which goes first,
// with the bench's load generator (wrk, else autocannon) on GET /v2/assign-list by a random rider: a
// real answer from the database, the kind integrators ask for. Medians of the runs' requests per
// second, and their ratio.
import { fork, type ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import express from 'express';
import {
  createApiRouter,
  allOperations,
  loadConfig,
  createPool,
  StreamLimit,
  API_HEADERS,
  fixedSecurityHeaders,
  createExpressServer,
  tuneV8,
} from '../src/bench-entry';
import { runLoad } from './http-load';
import { median } from './stats';

type Variant = 'as-is' | 'behind-router';

/** The child: serves one variant on a free port of 127.0.0.1 and tells the parent which. */
function serve(variant: Variant, url: string): void {
  tuneV8();
  const config = loadConfig({ ...process.env, DATABASE_URL: url, AUTH: 'off', NODE_ENV: 'production' });
  const pool = createPool(url, config, () => undefined);
  const headers = fixedSecurityHeaders(API_HEADERS, false);
  if (!headers) throw new Error('the API headers are expected to be fixed');
  const api = createApiRouter({ pool, streamPool: pool, streamLimit: new StreamLimit(2), log: () => undefined, headers });
  const app = express();
  app.set('etag', false);
  app.set('x-powered-by', false);
  if (variant === 'as-is') app.use('/v2', api);
  else {
    const router = express.Router();
    for (const operation of allOperations) router.all(operation.path, api);
    app.use('/v2', router);
  }
  const server = createExpressServer(app);
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
}

function start(variant: Variant, url: string): Promise<{ child: ChildProcess; base: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['--serve', variant, '--url', url], { stdio: 'inherit' });
    child.once('message', (message: { port: number }) => resolve({ child, base: `http://127.0.0.1:${message.port}` }));
    child.once('exit', (code) => reject(new Error(`the ${variant} server ended (${code})`)));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      serve: { type: 'string' },
      seconds: { type: 'string' },
      runs: { type: 'string' },
      connections: { type: 'string' },
    },
  });
  const url = values.url ?? process.env.DATABASE_URL;
  if (!url) throw new Error('usage: node dist/bench/dispatch.js --url <database URL> [--seconds S] [--runs N] [--connections C]');
  if (values.serve) return serve(values.serve as Variant, url);
  const seconds = Number(values.seconds ?? 10);
  const runs = Number(values.runs ?? 5);
  const connections = Number(values.connections ?? 16);
  const { min, max } = await riderRange(url);
  const target = { prefix: '/v2/assign-list?', random: { param: 'rider_id', min, max } };
  const servers = { 'as-is': await start('as-is', url), 'behind-router': await start('behind-router', url) };
  const rates: Record<Variant, number[]> = { 'as-is': [], 'behind-router': [] };
  try {
    for (const variant of ['as-is', 'behind-router'] as const)
      await runLoad(servers[variant].base, target, { connections, duration: 2, headers: {} });
    for (let i = 0; i < runs; i++) {
      const order: Variant[] = i % 2 ? ['behind-router', 'as-is'] : ['as-is', 'behind-router'];
      for (const variant of order) {
        const result = await runLoad(servers[variant].base, target, { connections, duration: seconds, headers: {} });
        if (result.non2xx || result.errors) throw new Error(`${variant}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        rates[variant].push(result.rps);
      }
      console.error(
        `run ${i + 1}/${runs}: as-is ${rates['as-is'][i].toFixed(0)} req/s, behind a router ${rates['behind-router'][i].toFixed(0)} req/s`,
      );
    }
  } finally {
    for (const { child } of Object.values(servers)) child.kill();
  }
  const asIs = median(rates['as-is']);
  const behind = median(rates['behind-router']);
  const list = (v: Variant) => rates[v].map((r) => r.toFixed(0)).join(', ');
  console.log(
    `GET /v2/assign-list by a random rider, ${connections} connections, ${seconds} s, ${runs} runs (median): ` +
      `as it is ${asIs.toFixed(0)} req/s, behind one more Router ${behind.toFixed(0)} req/s: ${(asIs / behind).toFixed(3)}x ` +
      `(runs: ${list('as-is')}; ${list('behind-router')})`,
  );
}

async function riderRange(url: string): Promise<{ min: number; max: number }> {
  const { Client } = await import('pg');
  const client = new Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ min: string; max: string }>('SELECT min(id)::text AS min, max(id)::text AS max FROM riders');
    return { min: Number(rows[0].min), max: Number(rows[0].max) };
  } finally {
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
