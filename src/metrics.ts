import cluster from 'node:cluster';
import crypto from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import client from 'prom-client';
import type { Pool } from './db/pool';
import type { ReadRouter } from './db/replicas';
import { answeredStatus } from './http/access-log';
import { HttpError } from './http/errors';
import type { KeptApplierStatus } from './db/kept-applier';

export interface Metrics {
  /** Counts and times every request, labelled by its route pattern (never by its raw path). */
  track: RequestHandler;
  /** GET /metrics in the Prometheus text format, for loopback or the METRICS_TOKEN bearer only. */
  serve: RequestHandler;
}

/** The route pattern (Express's route, never the raw path), else 'unmatched'. */
function routeOf(req: Request): string {
  return req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/** The admin pages' process, as the listening process sees it (src/runtime/admin-process.ts). */
export interface AdminProcessStatus {
  readonly pid: number | undefined;
  readonly handedOver: number;
}

export function createMetrics(
  pools: Record<string, Pool>,
  reads: ReadRouter,
  metricsToken?: string,
  kept?: KeptApplierStatus,
  adminProcess?: AdminProcessStatus,
): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const answers = new AnswerCounts();
  registry.registerMetric(answers.counter() as never);
  registry.registerMetric(answers.histogram() as never);
  new client.Gauge({
    name: 'db_pool_connections',
    help: 'Pooled database connections by pool and state.',
    labelNames: ['pool', 'state'],
    registers: [registry],
    collect() {
      for (const [name, pool] of Object.entries(pools)) {
        this.set({ pool: name, state: 'total' }, pool.totalCount);
        this.set({ pool: name, state: 'idle' }, pool.idleCount);
        this.set({ pool: name, state: 'waiting' }, pool.queued);
      }
    },
  });

  // Per database the service reads from: its pools, whether it is in the read rotation, its lag.
  const targets = [reads.primary, ...reads.replicas];
  new client.Gauge({
    name: 'db_database_pool_connections',
    help: 'Pooled connections by database, pool and state (in_use, waiting).',
    labelNames: ['database', 'pool', 'state'],
    registers: [registry],
    collect() {
      for (const target of targets) {
        for (const name of ['queries', 'streams', 'admin'] as const) {
          const pool = target[name];
          if (!pool) continue;
          this.set({ database: target.name, pool: name, state: 'in_use' }, pool.totalCount - pool.idleCount);
          this.set({ database: target.name, pool: name, state: 'waiting' }, pool.queued);
        }
      }
    },
  });
  new client.Gauge({
    name: 'db_database_in_rotation',
    help: '1 when reads go to this database (a replica in the rotation, or the primary), else 0.',
    labelNames: ['database', 'role'],
    registers: [registry],
    // Across worker processes: in the rotation only where every worker has it there.
    aggregator: 'min',
    collect() {
      for (const s of reads.status()) this.set({ database: s.name, role: s.role }, Number(s.in_rotation));
    },
  });
  new client.Gauge({
    name: 'db_database_replicating',
    help: 'A replica: 1 while it receives WAL from its primary, 0 when not (it falls behind at the next write), as last checked.',
    labelNames: ['database', 'role'],
    registers: [registry],
    aggregator: 'min',
    collect() {
      for (const s of reads.status())
        if (typeof s.replicating === 'boolean') this.set({ database: s.name, role: s.role }, Number(s.replicating));
    },
  });
  new client.Gauge({
    name: 'db_database_lag_seconds',
    help: 'How far a replica replays behind its primary, as last checked (0 for the primary).',
    labelNames: ['database', 'role'],
    registers: [registry],
    aggregator: 'max',
    collect() {
      for (const s of reads.status()) if (s.lag_ms !== null) this.set({ database: s.name, role: s.role }, s.lag_ms / 1000);
    },
  });

  // The admin pages' process: whether it serves them now, and the connections it was handed. Its own
  // pools and answers are its own (not in this process's figures above).
  if (adminProcess) {
    new client.Gauge({
      name: 'admin_process_up',
      help: '1 while the admin pages have a process of their own (ADMIN_PROCESS), 0 while this process serves them.',
      registers: [registry],
      collect() {
        this.set(adminProcess.pid ? 1 : 0);
      },
    });
    new client.Counter({
      name: 'admin_process_connections_total',
      help: "Connections whose first request was an admin page, handed to the admin pages' process.",
      registers: [registry],
      collect() {
        this.reset();
        this.inc(adminProcess.handedOver);
      },
    });
  }

  // The kept data's writer in this process (migration 018), as it last saw the change log. The
  // database's own answer (rows waiting, the oldest one's age) is on /health/ready.
  if (kept) {
    new client.Counter({
      name: 'kept_changes_applied_total',
      help: 'Rows of the change log this process has written into the kept data.',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(kept.applied);
      },
    });
    new client.Gauge({
      name: 'kept_data_behind_seconds',
      help: 'Since when the change log has not been seen caught up by this process (0: caught up at its last batch); not set while another process applies.',
      registers: [registry],
      aggregator: 'min',
      collect() {
        this.reset();
        if (kept.elsewhere) return;
        this.set(kept.behindSince ? (Date.now() - kept.behindSince.getTime()) / 1000 : 0);
      },
    });
  }

  // One shared listener, called with the response as `this`: no closure and no once-wrapper per
  // request ('close' comes once per response, which is garbage after it).
  function answered(this: Response) {
    answers.add(
      this.req.method,
      routeOf(this.req),
      answeredStatus(this.req, this),
      (performance.now() - (this.locals.requestStarted as number)) / 1000,
    );
  }
  const track: RequestHandler = (_req, res, next) => {
    res.locals.requestStarted = performance.now();
    res.on('close', answered);
    next();
  };

  /** Any header a proxy or forwarder adds (X-Forwarded-*, Forwarded, X-Real-IP, Via, …): a request not straight from this machine. */
  const viaProxy = (headers: Record<string, unknown>) =>
    Object.keys(headers).some((name) =>
      /^(x-forwarded(-.+)?|forwarded(-for)?|via|x-real-ip|.*client-?ip|cf-connecting-ip|x-original-forwarded-for|x-envoy-external-address|x-proxyuser-ip|.*-user-ip)$/.test(
        name,
      ),
    );

  const expected = metricsToken ? crypto.createHash('sha256').update(metricsToken).digest() : undefined;
  const serve: RequestHandler = async (req, res) => {
    if (expected) {
      const given = /^Bearer +(\S+)$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
      const hash = crypto.createHash('sha256').update(given).digest();
      if (!crypto.timingSafeEqual(hash, expected)) throw new HttpError(404, `Nothing is served at ${req.path}.`);
    } else if (!isLoopback(req.socket.remoteAddress) || viaProxy(req.headers)) {
      // Not public: without a token, only a scraper on this machine may read it, straight (a request a
      // proxy on this machine forwards says so in one header or another); to others it does not exist.
      throw new HttpError(404, `Nothing is served at ${req.path}.`);
    }
    res
      .set('Cache-Control', 'no-store')
      .type(registry.contentType)
      .send(await scrape());
  };
  const scrape = cluster.isWorker ? workerScrape(registry) : () => registry.metrics();
  return { track, serve };
}

const ASK = 'rider-equipment:metrics?';
const ANSWER = 'rider-equipment:metrics';

/**
 * In a worker (WEB_CONCURRENCY > 1), /metrics answers for the whole instance: the worker asks its
 * supervisor, which gathers every worker's registry (prom-client's AggregatorRegistry: counters and
 * pool gauges summed, rotation by min, lag by max) and sends the text back.
 */
function workerScrape(registry: client.Registry): () => Promise<string> {
  client.AggregatorRegistry.setRegistries([registry]);
  new client.AggregatorRegistry(); // answers the supervisor's requests for this worker's metrics
  const waiting = new Map<number, (text: string) => void>();
  let next = 0;
  process.on('message', (message: { type?: string; id?: number; text?: string }) => {
    if (message?.type === ANSWER && waiting.has(message.id!)) waiting.get(message.id!)!(message.text ?? '');
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the supervisor did not send the metrics within 5 s'));
      }, 5000);
      waiting.set(id, (text) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(text);
      });
      process.send!({ type: ASK, id });
    });
}

/** In the supervisor: answers its workers' requests for the whole instance's metrics. */
export function serveWorkerMetrics(): void {
  const aggregator = new client.AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: number }) => {
    if (message?.type !== ASK) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id: message.id, text }),
      (error: Error) =>
        worker.send({ type: ANSWER, id: message.id, text: `# metrics of the workers could not be gathered: ${error.message}\n` }),
    );
  });
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60];

/** The answers of one method, route and status: how many, their total time, and how many in each bucket. */
interface Answers {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Per bucket of DURATION_BUCKETS, not cumulative; the last counts those above every bound. */
  buckets: number[];
}

/**
 * http_requests_total and http_request_duration_seconds, counted in plain numbers per method, route
 * and status, and handed to prom-client's registry as two metrics in the shape its Counter and
 * Histogram give (so the text, and the cluster's sums, are theirs). prom-client's own classes hash
 * the labels of each observation (sorting their names) on every request, which cost as much as the
 * rest of the request's metrics (docs/runs/BENCHMARKS.md).
 */
class AnswerCounts {
  /** By route, method and status: nested maps, so that finding a request's counts makes no key of its own. */
  private readonly byRoute = new Map<string, Map<string, Map<number, Answers>>>();

  add(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let answers = byStatus.get(status);
    if (!answers) {
      answers = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: DURATION_BUCKETS.map(() => 0).concat(0) };
      byStatus.set(status, answers);
    }
    answers.count += 1;
    answers.sum += seconds;
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]) i++;
    answers.buckets[i] += 1;
  }

  private all(): Answers[] {
    return [...this.byRoute.values()].flatMap((byMethod) => [...byMethod.values()].flatMap((byStatus) => [...byStatus.values()]));
  }

  counter() {
    const name = 'http_requests_total';
    return {
      name,
      get: async () => ({
        name,
        help: 'Requests answered.',
        type: 'counter',
        aggregator: 'sum',
        values: this.all().map((a) => ({ labels: a.labels, value: a.count })),
      }),
      reset: () => this.byRoute.clear(),
    };
  }

  histogram() {
    const name = 'http_request_duration_seconds';
    const value = (labels: object, sharedLabels: object, value: number, suffix: string) => ({
      labels,
      sharedLabels,
      value,
      metricName: name + suffix,
    });
    return {
      name,
      get: async () => ({
        name,
        help: 'Time from request to the end of the answer.',
        type: 'histogram',
        aggregator: 'sum',
        values: this.all().flatMap((a) => {
          let below = 0;
          return [
            ...DURATION_BUCKETS.map((le, i) => value({ le }, a.labels, (below += a.buckets[i]), '_bucket')),
            value({ le: '+Inf' }, a.labels, a.count, '_bucket'),
            value({}, a.labels, a.sum, '_sum'),
            value({}, a.labels, a.count, '_count'),
          ];
        }),
      }),
      reset: () => this.byRoute.clear(),
    };
  }
}
