import { loadConfig } from '../src/config';

describe('settings for serving past one process', () => {
  it('counts the rate limits in PostgreSQL as soon as there are several processes or replicas, in memory otherwise', () => {
    const store = (env: Record<string, string>) => loadConfig(env).auth.rateLimitStore;
    expect(store({})).toBe('memory');
    expect(store({ WEB_CONCURRENCY: '2' })).toBe('postgres');
    expect(store({ EMBEDDED_REPLICAS: '1' })).toBe('postgres');
    expect(store({ DATABASE_URL: 'postgres://a/b', DATABASE_REPLICA_URLS: 'postgres://c/b' })).toBe('postgres');
    // Several instances of one process each: said explicitly.
    expect(store({ RATE_LIMIT_STORE: 'postgres' })).toBe('postgres');
    expect(store({ WEB_CONCURRENCY: '2', RATE_LIMIT_STORE: 'memory' })).toBe('memory');
  });

  it('refuses replica and store settings that cannot work, naming them', () => {
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://c/b' })).toThrow(/DATABASE_REPLICA_URLS needs DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://a/b', DATABASE_REPLICA_URLS: 'mysql://c/b' })).toThrow(
      /DATABASE_REPLICA_URLS must be postgres/,
    );
    expect(() => loadConfig({ RATE_LIMIT_STORE: 'redis' })).toThrow(/RATE_LIMIT_STORE must be one of auto, postgres, memory/);
    expect(() => loadConfig({ WEB_CONCURRENCY: '0' })).toThrow(/WEB_CONCURRENCY must be a whole number from 1 to 64/);
    expect(() => loadConfig({ EMBEDDED_REPLICAS: '9' })).toThrow(/EMBEDDED_REPLICAS must be a whole number from 0 to 8/);
  });
});

describe("the admin pages' connections", () => {
  it('gives the admin pages and reports a pool of their own, two connections unless ADMIN_POOL_MAX says otherwise', () => {
    expect(loadConfig({}).pool).toMatchObject({ max: 4, adminMax: 1 });
    expect(loadConfig({ ADMIN_POOL_MAX: '6' }).pool.adminMax).toBe(6);
    expect(loadConfig({ ADMIN_POOL_MAX: '' }).pool.adminMax).toBe(1);
  });

  it('refuses an ADMIN_POOL_MAX that is not a whole number from 1 to 1000, naming it', () => {
    for (const bad of ['0', '-1', '2.5', 'two', '1001']) {
      expect(() => loadConfig({ ADMIN_POOL_MAX: bad })).toThrow(`ADMIN_POOL_MAX must be a whole number from 1 to 1000, got "${bad}"`);
    }
  });
});
