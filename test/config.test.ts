import os from 'node:os';
import { loadConfig } from '../src/config';

describe('settings for serving past one process', () => {
  it('counts the rate limits in PostgreSQL as soon as there are several processes or replicas, in memory otherwise', () => {
    const store = (env: Record<string, string>) => loadConfig(env).auth.rateLimitStore;
    expect(store({ ADMIN_PROCESS: 'off' })).toBe('memory');
    expect(store({ WEB_CONCURRENCY: '2' })).toBe('postgres');
    // The admin pages' process is a second one (src/runtime/admin-process.ts).
    expect(store({})).toBe('postgres');
    expect(store({ ADMIN_PROCESS: 'off', EMBEDDED_REPLICAS: '1' })).toBe('postgres');
    expect(store({ DATABASE_URL: 'postgres://a/b', DATABASE_REPLICA_URLS: 'postgres://c/b' })).toBe('postgres');
    // Several instances of one process each: said explicitly.
    expect(store({ RATE_LIMIT_STORE: 'postgres' })).toBe('postgres');
    expect(store({ WEB_CONCURRENCY: '2', RATE_LIMIT_STORE: 'memory' })).toBe('memory');
  });

  it('runs the admin pages in a process of their own with one process, at ADMIN_NICE', () => {
    expect(loadConfig({}).adminProcess).toEqual({ enabled: true, nice: 5 });
    expect(loadConfig({ ADMIN_PROCESS: 'off' }).adminProcess.enabled).toBe(false);
    // Several workers each serve every page: node:cluster hands them connections, not paths.
    expect(loadConfig({ WEB_CONCURRENCY: '2' }).adminProcess.enabled).toBe(false);
    expect(loadConfig({ ADMIN_NICE: '0' }).adminProcess.nice).toBe(0);
    expect(() => loadConfig({ ADMIN_NICE: '20' })).toThrow(/ADMIN_NICE must be a whole number from 0 to 19/);
    expect(() => loadConfig({ ADMIN_PROCESS: 'maybe' })).toThrow(/ADMIN_PROCESS must be on or off/);
  });

  it('refuses replica and store settings that cannot work, naming them', () => {
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://c/b' })).toThrow(/DATABASE_REPLICA_URLS needs DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://a/b', DATABASE_REPLICA_URLS: 'mysql://c/b' })).toThrow(
      /DATABASE_REPLICA_URLS must be postgres/,
    );
    expect(() => loadConfig({ RATE_LIMIT_STORE: 'redis' })).toThrow(/RATE_LIMIT_STORE must be one of auto, postgres, memory/);
    expect(loadConfig({}).auth.rateLimitFlushMs).toBe(200);
    expect(loadConfig({ RATE_LIMIT_FLUSH_MS: '50' }).auth.rateLimitFlushMs).toBe(50);
    expect(() => loadConfig({ RATE_LIMIT_FLUSH_MS: '5' })).toThrow(/RATE_LIMIT_FLUSH_MS must be a whole number from 10 to 10000/);
    expect(() => loadConfig({ WEB_CONCURRENCY: '0' })).toThrow(/WEB_CONCURRENCY must be a whole number from 1 to 64/);
    expect(() => loadConfig({ EMBEDDED_REPLICAS: '9' })).toThrow(/EMBEDDED_REPLICAS must be a whole number from 0 to 8/);
    expect(loadConfig({}).embedded.slotWalKeepMb).toBe(1024);
    expect(() => loadConfig({ EMBEDDED_SLOT_WAL_KEEP_MB: '0' })).toThrow(
      /EMBEDDED_SLOT_WAL_KEEP_MB must be a whole number from 1 to 1048576/,
    );
  });
});

describe("streams' minimum rates", () => {
  it('defaults to 64 kB/s, 256 kB/s while others wait, over 30 s; refuses anything but whole numbers, naming them', () => {
    expect(loadConfig({}).pool).toMatchObject({ streamMinRate: 65536, streamMinRateBusy: 262144, streamMinRateWindowMs: 30000 });
    expect(loadConfig({ STREAM_MIN_RATE: '0', STREAM_MIN_RATE_BUSY: '0' }).pool).toMatchObject({ streamMinRate: 0, streamMinRateBusy: 0 });
    for (const bad of ['-1', '1.5', '64k', '1000000001'])
      expect(() => loadConfig({ STREAM_MIN_RATE: bad })).toThrow(
        `STREAM_MIN_RATE must be a whole number from 0 to 1000000000, got "${bad}"`,
      );
    expect(() => loadConfig({ STREAM_MIN_RATE_BUSY: 'fast' })).toThrow(/STREAM_MIN_RATE_BUSY must be a whole number/);
    expect(() => loadConfig({ STREAM_MIN_RATE_WINDOW_MS: '50' })).toThrow(/STREAM_MIN_RATE_WINDOW_MS must be a whole number from 100/);
  });
});

describe("the admin pages' connections", () => {
  it('gives the admin pages and reports a pool of their own, as many connections as cores (2 at least) unless ADMIN_POOL_MAX says otherwise', () => {
    const cores = Math.max(2, os.availableParallelism());
    expect(loadConfig({}).pool).toMatchObject({ max: 4, adminMax: cores, adminStatementTimeoutMs: 5000 });
    expect(loadConfig({ ADMIN_POOL_MAX: '6' }).pool.adminMax).toBe(6);
    expect(loadConfig({ ADMIN_POOL_MAX: '' }).pool.adminMax).toBe(cores);
    expect(loadConfig({ ADMIN_STATEMENT_TIMEOUT_MS: '2000' }).pool.adminStatementTimeoutMs).toBe(2000);
  });

  it('refuses an ADMIN_POOL_MAX that is not a whole number from 1 to 1000, naming it', () => {
    for (const bad of ['0', '-1', '2.5', 'two', '1001']) {
      expect(() => loadConfig({ ADMIN_POOL_MAX: bad })).toThrow(`ADMIN_POOL_MAX must be a whole number from 1 to 1000, got "${bad}"`);
    }
  });
});

describe('DB_PREPARED_STATEMENTS', () => {
  it('keeps 100 statements prepared per connection unless told otherwise; 0 keeps none', () => {
    expect(loadConfig({}).pool.prepared).toBe(100);
    expect(loadConfig({ DB_PREPARED_STATEMENTS: '0' }).pool.prepared).toBe(0);
    expect(loadConfig({ DB_PREPARED_STATEMENTS: '1000' }).pool.prepared).toBe(1000);
    for (const bad of ['-1', 'all', '100001']) {
      expect(() => loadConfig({ DB_PREPARED_STATEMENTS: bad })).toThrow(
        `DB_PREPARED_STATEMENTS must be a whole number from 0 to 100000, got "${bad}"`,
      );
    }
  });
});

describe('TRUST_PROXY: whose X-Forwarded-* to believe, never anyone’s', () => {
  const trust = (value: string) => loadConfig({ NODE_ENV: 'test', TRUST_PROXY: value }).trustProxy;
  it('is off, a number of hops, or the proxies’ addresses; on is a proxy on this machine', () => {
    expect([trust(''), trust('off'), trust('0')]).toEqual([false, false, false]);
    expect([trust('on'), trust('true')]).toEqual([['loopback'], ['loopback']]);
    expect([trust('1'), trust('2')]).toEqual([1, 2]);
    expect(trust('10.0.0.0/8, 192.168.1.2,loopback')).toEqual(['10.0.0.0/8', '192.168.1.2', 'loopback']);
  });
  it('refuses anything else at start, naming it', () => {
    expect(() => trust('any')).toThrow(/TRUST_PROXY .*"any" is none of these/);
    expect(() => trust('10.0.0.0/8, 300.1.1.1')).toThrow(/"300.1.1.1"/);
    expect(() => trust('99')).toThrow(/TRUST_PROXY must be off, 1 to 10 hops/);
  });
});

describe('stopping', () => {
  it('keeps the listener open SHUTDOWN_DRAIN_MS after the signal, 5 s unless said otherwise (0: none)', () => {
    expect(loadConfig({}).shutdownDrainMs).toBe(5000);
    expect(loadConfig({ SHUTDOWN_DRAIN_MS: '0' }).shutdownDrainMs).toBe(0);
    expect(loadConfig({ SHUTDOWN_DRAIN_MS: '15000' }).shutdownDrainMs).toBe(15000);
    for (const bad of ['-1', '2.5', 'soon', '3600001']) {
      expect(() => loadConfig({ SHUTDOWN_DRAIN_MS: bad })).toThrow(
        `SHUTDOWN_DRAIN_MS must be a whole number from 0 to 3600000, got "${bad}"`,
      );
    }
  });
});
