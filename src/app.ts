import path from 'node:path';
import compression from 'compression';
import express, { type Express, type RequestHandler } from 'express';
import type { Config } from './config';
import type { Lane, Pool } from './db/pool';
import { keptFreshness, type KeptApplierStatus } from './db/kept-applier';
import { primaryOnly, type ReadRouter } from './db/replicas';
import type { StreamReader } from './db/stream-query';
import { AdvisoryPlaces } from './db/stream-places';
import { throttled } from './http/failure-log';
import { createAdminRouter } from './admin/router';
import { createApiRouter } from './api/v2/router';
import { createReportsRouter } from './reports/router';
import { problemHandler, type Logger } from './http/problem';
import { createDocsRouter } from './docs/router';
import { HttpError } from './http/errors';
import { rateLimitStores } from './auth/rate-limit-store';
import { createSignIn } from './auth/sign-in';
import { createMetrics, type AdminProcessStatus } from './metrics';
import { accessLog } from './http/access-log';
import { requestId } from './http/request-id';
import { inSequence } from './http/in-sequence';
import { parseQuery } from './http/query-parser';
import { API_HEADERS, fixedSecurityHeaders, securityHeaders } from './http/security-headers';
import { apiCors } from './http/cors';
import { StreamLimit } from './http/stream-limit';
import type { TokenCache } from './auth/tokens';
import { projectRoot } from './paths';
import { ADMIN, links } from './html/links';

export interface AppDeps {
  /** The primary's pool: sessions, sign-in, tokens, and every read when there is no replica. */
  pool: Pool;
  /** Connections for whole-table answers (see createPool); the query pool when not given. */
  streamPool?: Pool;
  /** Connections of the admin pages and reports (see createPool); the query pool when not given. */
  adminPool?: Pool;
  /** Where domain reads go (replicas in turn, else the primary); the primary's pools when not given. */
  reads?: ReadRouter;
  config: Config;
  log?: Logger;
  /** The live API tokens; required unless config.auth.enabled is false. */
  tokens?: TokenCache;
  /** True once the process is stopping (src/shutdown.ts): /health/ready then answers 503. */
  stopping?: () => boolean;
  /** This process's writer of the kept data, when it runs one (src/db/kept-applier.ts): for the metrics. */
  keptApplier?: KeptApplierStatus;
  /** The admin pages' process, when this process hands it their connections: for the metrics. */
  adminProcess?: AdminProcessStatus;
}

/**
 * gzip or brotli for clients that ask for it. Those that do not (most API integrations on a fast
 * network, load balancers' health checks) skip the compression wrapper and its per-request cost.
 */
function compressWhenAccepted(): express.RequestHandler {
  const compress = compression();
  return (req, res, next) => {
    if (req.headers['accept-encoding']) {
      compress(req, res, next);
    } else {
      res.setHeader('Vary', 'Accept-Encoding');
      next();
    }
  };
}

/** The whole HTTP surface, without listening: tests and the server build it the same way. */
export function createApp({
  pool,
  streamPool = pool,
  adminPool,
  reads = primaryOnly(pool, streamPool, adminPool),
  config,
  log = console.error,
  tokens,
  stopping = () => false,
  keptApplier,
  adminProcess,
}: AppDeps): Express {
  if (config.auth.enabled && !tokens) throw new Error('createApp: authentication is on, so a TokenCache is required');
  // The database away while the service stops (Ctrl-C reaches an embedded PostgreSQL too, maybe first): no
  // news. Said a moment later, unless the service is stopping by then.
  const away: Logger = (message) => void setTimeout(() => (stopping() ? undefined : log(message)), 200).unref();
  const access =
    config.auth.enabled && tokens
      ? {
          tokens,
          perMinute: config.auth.perMinute,
          failuresPerMinute: config.auth.failuresPerMinute,
          stores: rateLimitStores(pool, config.auth.rateLimitStore, away, config.auth.rateLimitFlushMs),
        }
      : undefined;
  // Counted in PostgreSQL wherever the rate limits are (several processes, or replicas): one limit for all.
  const sharedPlaces = config.auth.rateLimitStore === 'postgres' ? new AdvisoryPlaces(pool.options.connectionString ?? '') : undefined;
  const streamLimit = new StreamLimit(config.streamsPerToken, sharedPlaces, (error) => {
    const reason = `stream places counted in this process alone, the database is away: ${(error as Error).message}`;
    throttled(away).write(reason, reason);
  });
  // API exports and admin CSV downloads share the stream pool but not its places (DB_STREAM_POOL_ADMIN).
  const idleTimeoutMs = config.pool.streamIdleTimeoutMs;
  const streamPools = [reads.primary, ...reads.replicas].map((target) => target.streams);
  const minRate = (lane: Lane) => ({
    bytesPerSecond: config.pool.streamMinRate,
    busyBytesPerSecond: config.pool.streamMinRateBusy,
    windowMs: config.pool.streamMinRateWindowMs,
    // Others wait for a place of this lane, on any of the databases.
    busy: () => streamPools.some((pool) => pool.waiting(lane) > 0),
  });
  const apiStreams: StreamReader = { acquire: (signal) => reads.streams.acquire(signal), idleTimeoutMs, minRate: minRate('default') };
  const adminStreams: StreamReader = {
    acquire: (signal) => reads.streams.acquire(signal, 'admin'),
    idleTimeoutMs,
    minRate: minRate('admin'),
  };
  // Neither one token nor one address (several tokens, or AUTH=off) ever holds every API export place: one
  // is left for others. Its shared places' failures are the stream limit's, logged there.
  const placeCap = new StreamLimit(Math.max(1, config.pool.streamMax - 1), sharedPlaces, () => undefined);
  const app = express();
  app.disable('x-powered-by');
  // Every answer is made per request and sent with no-store: an ETag would only hash each body for nothing.
  app.set('etag', false);
  if (config.trustProxy !== false) app.set('trust proxy', config.trustProxy);
  // Flat string values (brackets stay in the name, where validation rejects them); broken encoding is a 400.
  app.set('query parser', parseQuery);

  const pools = { queries: pool, streams: streamPool, ...(adminPool ? { admin: adminPool } : {}) };
  const metrics = createMetrics(pools, reads, config.metricsToken, keptApplier, adminProcess);
  // What every request passes, in this order, as one layer: each layer costs a match and a dispatch
  // per request, and these never skip a request.
  app.use(
    inSequence([
      requestId,
      metrics.track,
      ...(config.logRequests ? [accessLog((res) => (res as express.Response).locals.requestId as string | undefined)] : []),
      compressWhenAccepted(),
    ]),
  );

  // The API first: its requests, the busiest, then pass no other layer. Its own security headers
  // (those of a JSON answer) and CORS come first in it.
  const behindProxy = config.trustProxy !== false;
  const apiHeaders = fixedSecurityHeaders(API_HEADERS, behindProxy);
  if (!apiHeaders) throw new Error("createApp: helmet's API headers are expected to be the same on every answer");
  const cors = config.corsOrigins.length ? apiCors(config.corsOrigins) : undefined;
  app.use(
    '/v2',
    createApiRouter({ pool: reads.queries, streamPool: apiStreams, streamLimit, placeCap, log, access, headers: apiHeaders, cors }),
  );
  // Every other answer: the pages' headers. upgrade-insecure-requests only where TLS is known to be in
  // front: over plain HTTP on another address (HOST=0.0.0.0) it would send every page's own CSS and
  // forms to an https that is not there.
  app.use(securityHeaders({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: behindProxy ? [] : null } } }, behindProxy));
  app.get('/health/live', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  app.get('/metrics', metrics.serve);
  app.get('/health/ready', async (_req, res) => {
    // A stopping process still answers for SHUTDOWN_DRAIN_MS: the balancer is told first to send no more.
    if (stopping()) return void res.status(503).set('Cache-Control', 'no-store').json({ status: 'stopping' });
    // Ready while some database can serve reads: the primary, or a replica in the rotation.
    const databases: Array<ReturnType<typeof reads.status>[number] & { accepts_writes?: boolean; reason?: string }> = reads.status();
    try {
      // Reads go on when the primary refuses changes (a standby promoted late, read-only, or so set):
      // said, so that an operator sees why notes and sign-ins answer 503.
      const { rows } = await pool.query<{ accepts_writes: boolean }>(
        `SELECT NOT pg_is_in_recovery() AND current_setting('default_transaction_read_only') = 'off' AS accepts_writes`,
      );
      databases[0] = { ...databases[0], accepts_writes: rows[0].accepts_writes };
    } catch (error) {
      databases[0] = { ...databases[0], in_rotation: false, reason: (error as Error).message };
      if (reads.primaryServesReads()) throw error;
    }
    // How far the kept data is behind the writes (migration 018): said, not failed on; reads go on.
    const kept = await keptFreshness(pool).then(
      ({ pending, behindMs }) => ({ pending_changes: pending, behind_ms: behindMs }),
      (error: Error) => ({ unknown: error.message }),
    );
    // Reads are served, but a standby that receives no WAL falls behind for good: said, for an operator.
    const status = databases.some((d) => d.replicating === false) ? 'degraded' : 'ok';
    res.set('Cache-Control', 'no-store').json({ status, databases, kept });
  });
  app.use('/docs', createDocsRouter());
  // Admin CSS and icons sit outside the admin router, so a sign-in put in front of it still gets them.
  app.use(links.assets, express.static(path.join(projectRoot, 'public/admin'), { index: false, maxAge: '1h' }));
  let handling: { primary: Pool; protect: RequestHandler } | undefined;
  if (access) {
    // Supervisors sign in; an API token does not open these pages, nor a session the API. Sessions
    // live on the primary, read and written on the admin pages' connections, as are their notes.
    const signIn = createSignIn({ pool: adminPool ?? pool, config, log });
    app.use(ADMIN, signIn.sessions, signIn.router, signIn.requireSupervisor);
    handling = { primary: adminPool ?? pool, protect: signIn.protect };
  }
  app.use(
    ADMIN,
    createReportsRouter({
      pool: reads.admin,
      log,
      chromiumPath: config.chromiumPath,
      attention: config.attention,
    }),
  );
  app.use(
    ADMIN,
    createAdminRouter({
      pool: reads.admin,
      streamPool: adminStreams,
      streamLimit,
      log,
      attention: config.attention,
      handling,
      timeZone: config.timeZone,
    }),
  );

  // The first address the start banner prints: a browser is sent to the supervisors' pages; an API
  // client (asking for JSON, or for anything) keeps the problem+json 404 below.
  app.get('/', (req, res, next) => {
    if (req.accepts(['application/json', 'text/html']) !== 'text/html') return next();
    res.redirect(302, links.home());
  });
  app.use((req) => {
    throw new HttpError(404, `Nothing is served at ${req.path}.`);
  });
  app.use(problemHandler(log));
  return app;
}
