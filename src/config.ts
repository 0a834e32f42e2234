import os from 'node:os';
// The only reader of process.env: every setting is typed and checked here, so a bad one fails at start.
import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import { projectRoot } from './paths';

export interface Config {
  port: number;
  host: string;
  /** Connection string of an external PostgreSQL; absent means the embedded server. */
  databaseUrl?: string;
  /** Hot standbys of that primary that serve the domain reads (DATABASE_REPLICA_URLS). */
  replicaUrls: string[];
  replicas: { maxLagMs: number; checkMs: number };
  /**
   * `replicas`: hot standbys the embedded primary gets (EMBEDDED_REPLICAS), without DATABASE_URL;
   * `slotWalKeepMb`: the most WAL one of their slots may hold on the primary (EMBEDDED_SLOT_WAL_KEEP_MB).
   */
  embedded: { dir: string; port: number; replicas: number; slotWalKeepMb: number };
  timeZone: string;
  pool: {
    max: number;
    acquireTimeoutMs: number;
    statementTimeoutMs: number;
    streamMax: number;
    /** Stream pool places only admin CSV downloads take (DB_STREAM_POOL_ADMIN), beyond `streamMax`. */
    streamAdminMax: number;
    streamStatementTimeoutMs: number;
    /** A stream whose client has taken no bytes for this long is ended and its statement cancelled; 0: never. */
    streamIdleTimeoutMs: number;
    /** A stream whose client takes fewer bytes a second than this over `streamMinRateWindowMs` is ended; 0: never. */
    streamMinRate: number;
    /** The same, while other exports wait for a place (STREAM_MIN_RATE_BUSY); 0: STREAM_MIN_RATE alone. */
    streamMinRateBusy: number;
    streamMinRateWindowMs: number;
    /** Connections of the admin pages and reports (ADMIN_POOL_MAX), apart from the API's. */
    adminMax: number;
    /** The admin pages' and reports' budget per statement (ADMIN_STATEMENT_TIMEOUT_MS): past it, the page says so. */
    adminStatementTimeoutMs: number;
    /** Statements each connection of the query and admin pools keeps prepared (DB_PREPARED_STATEMENTS); 0: none. */
    prepared: number;
  };
  /** Unbounded streams (whole-table answers, CSV downloads) one API token or admin session may run at once. */
  streamsPerToken: number;
  logRequests: boolean;
  nodeEnv: string;
  auth: {
    enabled: boolean;
    refreshMs: number;
    perMinute: number;
    failuresPerMinute: number;
    /** Failed sign-ins to one account from one address in 15 minutes. */
    signInFailures: number;
    /** Failed sign-ins from one address, to any accounts, in 15 minutes (a browser known to the account typed aside). */
    signInAddressFailures: number;
    /** Forms a supervisor may post per minute (notes, batches, assignments, undos): NOTES_PER_MINUTE. */
    notesPerMinute: number;
    /** Failed sign-ins per account (username) in 5 minutes, from any address. */
    signInAccountFailures: number;
    rateLimitStore: 'postgres' | 'memory';
    /** How often a process adds its counted hits to the shared counts in PostgreSQL (RATE_LIMIT_STORE=postgres). */
    rateLimitFlushMs: number;
  };
  /** HTTP worker processes (node:cluster) on one port. */
  webConcurrency: number;
  /**
   * The admin pages in a process of their own (ADMIN_PROCESS; one process only, WEB_CONCURRENCY=1), at this
   * CPU niceness (ADMIN_NICE): see src/runtime/admin-process.ts.
   */
  adminProcess: { enabled: boolean; nice: number };
  sessions: { idleMinutes: number; maxHours: number; secret?: string };
  /** Trust X-Forwarded-* from a proxy in front (TLS ends there): makes session cookies Secure. */
  trustProxy: TrustProxy;
  /** Bearer token that opens /metrics from other machines; without it, /metrics answers loopback only. */
  metricsToken?: string;
  /** How long SIGTERM waits for requests in flight before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** After SIGTERM, how long the listener stays open (readiness already failing) before it closes. */
  shutdownDrainMs: number;
  /** Chromium for PDF reports; absent turns PDF downloads off (see chromiumPath). */
  chromiumPath?: string;
  /** The thresholds of the "Needs attention" rules (src/rules/). */
  attention: AttentionSettings;
  /** Browser origins that may call the API from their pages (CORS_ORIGINS); empty: none, `*`: any. */
  corsOrigins: string[];
  /** How often this process applies the kept data's change log once it is empty (KEPT_APPLY_MS); 0: never. */
  keptApplyMs: number;
}

export interface AttentionSettings {
  /** A rider's last this many checks all failed a validation (ID, plate or sticker). */
  failedChecks: number;
  /** A rider holding equipment has had no patrol check for this many days. */
  uncheckedDays: number;
  /** Lost and Accident exchanges of the last this many days, per 3PL… */
  lossDays: number;
  /** …against the 3PL's rate over this many days before them. */
  baselineDays: number;
}

/** The "Needs attention" thresholds when no ATTENTION_* setting is given. */
export const DEFAULT_ATTENTION: AttentionSettings = { failedChecks: 2, uncheckedDays: 60, lossDays: 30, baselineDays: 365 };

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/**
 * TRUST_PROXY: which peers' X-Forwarded-* headers to believe (Express's "trust proxy"), never any:
 * off; a number of hops; or the proxies' addresses and subnets, comma-separated, with Express's
 * names (`loopback`, `linklocal`, `uniquelocal`). `on` is `loopback`: a TLS proxy on this machine.
 * A client that reaches the service past the proxy cannot then choose its own address.
 */
export type TrustProxy = false | number | string[];
function trustProxy(env: Env): TrustProxy {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || /^(0|false|off|no)$/i.test(raw)) return false;
  if (/^(1|true|on|yes)$/i.test(raw) && !/^1$/.test(raw)) return ['loopback'];
  if (/^[0-9]+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > 10) throw new ConfigError(`TRUST_PROXY must be off, 1 to 10 hops, or the proxies' addresses, got "${raw}"`);
    return hops;
  }
  const list = raw.split(',').map((part) => part.trim());
  for (const part of list) {
    try {
      express().set('trust proxy', [part]); // Express's own parser: an address, a subnet or a name
    } catch {
      throw new ConfigError(
        `TRUST_PROXY must be off, a number of hops, or the proxies' addresses (e.g. "loopback" or "10.0.0.0/8, 192.168.1.2"); "${part}" is none of these`,
      );
    }
  }
  return list;
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|on|yes)$/i.test(raw)) return true;
  if (/^(0|false|off|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be on or off, got "${raw}"`);
}

/**
 * RATE_LIMIT_STORE=auto: in PostgreSQL (shared, one statement per flush interval) when `scaled`: the service runs
 * as several processes or reads from replicas; in memory (exact for one process, and free) otherwise.
 * Several instances of one process each must say `postgres` (docs/SCALING.md).
 */
function rateLimitStore(chosen: 'auto' | 'postgres' | 'memory', scaled: boolean): 'postgres' | 'memory' {
  if (chosen !== 'auto') return chosen;
  return scaled ? 'postgres' : 'memory';
}

function oneOf<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${choices.join(', ')}, got "${raw}"`);
  return raw as T;
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * CHROMIUM_PATH: the browser that prints reports to PDF. Unset, Debian's /usr/bin/chromium when it is
 * installed, else none (PDF off). Set to a missing file, the start fails; set to `off`, PDF is off.
 */
export function chromiumPath(env: Env = process.env): string | undefined {
  const raw = env.CHROMIUM_PATH;
  if (raw === undefined || raw === '') return fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
  if (/^off$/i.test(raw)) return undefined;
  if (!fs.existsSync(raw)) throw new ConfigError(`CHROMIUM_PATH "${raw}" does not exist`);
  return raw;
}

/**
 * CORS_ORIGINS: origins (`https://app.example.com`, comma-separated) whose pages may call the API
 * with a token, or `*` for any. Unset: none, and browsers keep other origins' pages from reading it.
 */
export function corsOrigins(env: Env = process.env): string[] {
  const list = (env.CORS_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  if (list.includes('*')) {
    if (list.length > 1) throw new ConfigError('CORS_ORIGINS is either * or a list of origins, not both');
    return list;
  }
  for (const origin of list) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    // An origin is scheme, host and port alone, as a browser sends it: no path, no trailing slash.
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(`CORS_ORIGINS: "${origin}" is not an origin such as https://app.example.com (scheme, host and port only)`);
    }
  }
  return list;
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = env.NODE_ENV || 'development';
  const timeZone = env.TIME_ZONE || 'UTC';
  if (!isTimeZone(timeZone)) throw new ConfigError(`TIME_ZONE "${timeZone}" is not an IANA time zone name`);

  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const replicaUrls = (env.DATABASE_REPLICA_URLS ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  for (const url of replicaUrls) {
    if (!/^postgres(ql)?:\/\//.test(url))
      throw new ConfigError('DATABASE_REPLICA_URLS must be postgres:// or postgresql:// URLs, separated by commas');
  }
  if (replicaUrls.length && !databaseUrl)
    throw new ConfigError('DATABASE_REPLICA_URLS needs DATABASE_URL (the primary); without it, use EMBEDDED_REPLICAS');
  const logRequests = onOff(env, 'LOG_REQUESTS', nodeEnv !== 'test');
  const webConcurrency = integer(env, 'WEB_CONCURRENCY', 1, 1, 64);
  // Several workers each serve every page (node:cluster hands out connections, not paths).
  const adminProcess = webConcurrency === 1 && onOff(env, 'ADMIN_PROCESS', true);
  const embeddedReplicas = integer(env, 'EMBEDDED_REPLICAS', 0, 0, 8);

  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    replicaUrls,
    replicas: {
      maxLagMs: integer(env, 'REPLICA_MAX_LAG_MS', 30000, 0, 86400000),
      checkMs: integer(env, 'REPLICA_CHECK_MS', 2000, 100, 600000),
    },
    embedded: {
      dir: path.resolve(projectRoot, env.EMBEDDED_PG_DIR || '.data/postgres'),
      port: integer(env, 'EMBEDDED_PG_PORT', 0, 0, 65535),
      replicas: embeddedReplicas,
      // A standby that is stopped or gone would have its slot keep WAL on the primary until the disk is full.
      slotWalKeepMb: integer(env, 'EMBEDDED_SLOT_WAL_KEEP_MB', 1024, 1, 1048576),
    },
    timeZone,
    pool: {
      // A database server runs about one query per core at a time; beyond a few connections, more only
      // queue inside PostgreSQL, where a long tail forms (see docs/DEVELOPMENT.md, "A small query pool").
      max: integer(env, 'DB_POOL_MAX', 4, 1, 1000),
      acquireTimeoutMs: integer(env, 'DB_ACQUIRE_TIMEOUT_MS', 5000, 100, 600000),
      statementTimeoutMs: integer(env, 'STATEMENT_TIMEOUT_MS', 30000, 0, 86400000),
      streamMax: integer(env, 'DB_STREAM_POOL_MAX', 10, 1, 1000),
      streamAdminMax: integer(env, 'DB_STREAM_POOL_ADMIN', 2, 1, 1000),
      streamStatementTimeoutMs: integer(env, 'STREAM_STATEMENT_TIMEOUT_MS', 3600000, 0, 86400000),
      // A client that stops reading holds its place (and its statement, waiting in ClientWrite) until then.
      streamIdleTimeoutMs: integer(env, 'STREAM_IDLE_TIMEOUT_MS', 30000, 0, 86400000),
      // One that drains its buffers now and then is never idle, but would keep its place as long.
      streamMinRate: integer(env, 'STREAM_MIN_RATE', 65536, 0, 1000000000),
      // Higher while others wait: a place is then worth more than a slow link's trickle.
      streamMinRateBusy: integer(env, 'STREAM_MIN_RATE_BUSY', 262144, 0, 1000000000),
      streamMinRateWindowMs: integer(env, 'STREAM_MIN_RATE_WINDOW_MS', 30000, 100, 86400000),
      // The admin pages' statements wait for these, never for the API's (src/db/pool.ts, 'admin').
      // As many as the machine has cores (at least 2): one slow page never holds every other supervisor.
      adminMax: integer(env, 'ADMIN_POOL_MAX', Math.max(2, os.availableParallelism()), 1, 1000),
      adminStatementTimeoutMs: integer(env, 'ADMIN_STATEMENT_TIMEOUT_MS', 5000, 0, 86400000),
      // Parsed once and, where PostgreSQL finds it no dearer, planned once per connection (src/db/prepared.ts).
      prepared: integer(env, 'DB_PREPARED_STATEMENTS', 100, 0, 100000),
    },
    streamsPerToken: integer(env, 'STREAMS_PER_TOKEN', 2, 1, 1000),
    attention: {
      failedChecks: integer(env, 'ATTENTION_FAILED_CHECKS', DEFAULT_ATTENTION.failedChecks, 1, 20),
      uncheckedDays: integer(env, 'ATTENTION_UNCHECKED_DAYS', DEFAULT_ATTENTION.uncheckedDays, 1, 3650),
      lossDays: integer(env, 'ATTENTION_LOSS_DAYS', DEFAULT_ATTENTION.lossDays, 1, 365),
      baselineDays: integer(env, 'ATTENTION_BASELINE_DAYS', DEFAULT_ATTENTION.baselineDays, 1, 3650),
    },
    webConcurrency,
    adminProcess: { enabled: adminProcess, nice: integer(env, 'ADMIN_NICE', 5, 0, 19) },
    logRequests,
    nodeEnv,
    metricsToken: env.METRICS_TOKEN || undefined,
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10000, 0, 3600000),
    // Time for a balancer to see /health/ready fail and stop sending, before connections are refused.
    shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS', 5000, 0, 3600000),
    auth: {
      enabled: onOff(env, 'AUTH', true),
      refreshMs: integer(env, 'AUTH_REFRESH_MS', 5000, 100, 3600000),
      perMinute: integer(env, 'API_RATE_LIMIT_PER_MINUTE', 1200, 1, 10000000),
      failuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 30, 1, 10000000),
      signInFailures: integer(env, 'SIGN_IN_FAILURES_PER_15_MINUTES', 10, 1, 10000),
      signInAddressFailures: integer(env, 'SIGN_IN_ADDRESS_FAILURES_PER_15_MINUTES', 100, 1, 100000),
      notesPerMinute: integer(env, 'NOTES_PER_MINUTE', 60, 1, 100000),
      signInAccountFailures: integer(env, 'SIGN_IN_ACCOUNT_FAILURES_PER_5_MINUTES', 10, 1, 10000),
      rateLimitStore: rateLimitStore(
        oneOf(env, 'RATE_LIMIT_STORE', ['auto', 'postgres', 'memory'] as const, 'auto'),
        webConcurrency + (adminProcess ? 1 : 0) + replicaUrls.length + embeddedReplicas > 1,
      ),
      // Longer: fewer statements on the primary, a larger overshoot of a limit across processes.
      rateLimitFlushMs: integer(env, 'RATE_LIMIT_FLUSH_MS', 200, 10, 10000),
    },
    sessions: {
      idleMinutes: integer(env, 'SESSION_IDLE_MINUTES', 30, 1, 10080),
      maxHours: integer(env, 'SESSION_MAX_HOURS', 12, 1, 720),
      secret: env.SESSION_SECRET || undefined,
    },
    trustProxy: trustProxy(env),
    corsOrigins: corsOrigins(env),
    chromiumPath: chromiumPath(env),
    // The kept data is at most about this far behind a write, plus a batch's time (docs/OPERATIONS.md).
    keptApplyMs: integer(env, 'KEPT_APPLY_MS', 200, 0, 60000),
  };
}
