// With the database away, every request fails the same way: the log says so once a second per
// reason, with a count of the rest, and never prints a stack for it.
import request from 'supertest';
import { createApp } from '../src/app';
import { createToken, TokenCache } from '../src/auth/tokens';
import { loadConfig } from '../src/config';
import { createPool } from '../src/db/pool';
import { ThrottledLog } from '../src/http/failure-log';
import { testApp, type TestApp } from './support/app';

describe('ThrottledLog', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('writes a reason once per second, then how many more there were', () => {
    const lines: string[] = [];
    const log = new ThrottledLog((line) => lines.push(line));
    for (let i = 0; i < 1000; i++) log.write('ECONNREFUSED', `request ${i}: ECONNREFUSED`);
    log.write('57P01', 'request x: 57P01');
    expect(lines).toEqual(['request 0: ECONNREFUSED', 'request x: 57P01']);

    jest.advanceTimersByTime(1000);
    // The window closed: its count, and nothing for the reason that came once.
    expect(lines.slice(2)).toEqual(['999 more like it in 1000 ms, not logged one by one: ECONNREFUSED']);
    log.write('ECONNREFUSED', 'request 1000: ECONNREFUSED');
    expect(lines.at(-1)).toBe('request 1000: ECONNREFUSED');
    jest.advanceTimersByTime(1000);
    expect(lines).toHaveLength(4);
  });
});

describe('a stopped primary, with the rate limits in PostgreSQL', () => {
  let live: TestApp;
  beforeAll(() => {
    live = testApp('fixture');
  });
  afterAll(() => live.close());

  it('logs a few lines a second for hundreds of failed requests, each one line, and every request counted', async () => {
    const { token } = await createToken(live.owner, { name: `failure-log-${process.pid}` });
    const config = loadConfig({ NODE_ENV: 'test', AUTH: 'on', RATE_LIMIT_STORE: 'postgres', DB_ACQUIRE_TIMEOUT_MS: '1000' });
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    // Nothing listens on port 1: every connection is refused at once, as with a primary that stopped.
    const away = 'postgres://postgres@127.0.0.1:1/nothing';
    const pools = [createPool(away, config, log), createPool(away, config, log, 'streams'), createPool(away, config, log, 'admin')];
    // The tokens were loaded while the database was there.
    const tokens = new TokenCache(live.pool, 60000, log);
    await tokens.start();
    const libraryReports = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const app = createApp({ pool: pools[0], streamPool: pools[1], adminPool: pools[2], config, log, tokens });
      const statuses: number[] = [];
      const started = Date.now();
      for (let batch = 0; batch < 20; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, () => request(app).get('/v2/assign-list?rider_id=1').set('authorization', `Bearer ${token}`)),
        );
        statuses.push(...answers.map((res) => res.status));
      }
      expect(new Set(statuses)).toEqual(new Set([503]));
      const seconds = Math.ceil((Date.now() - started) / 1000);
      // Every window closed.
      await new Promise((resolve) => setTimeout(resolve, 1100));

      expect(libraryReports).not.toHaveBeenCalled();
      for (const line of lines) expect(line).not.toContain('\n');
      // At most one line per reason and second, and a count for the rest: two reasons here (the 503s and
      // the rate-limit store), however long a loaded machine takes over the 200 requests.
      expect(lines.length).toBeLessThanOrEqual(2 * 2 * (seconds + 1));
      expect(lines.length).toBeLessThan(200 / 5);
      const failed = lines.filter((line) => / -> 503: .*ECONNREFUSED/.test(line)).length;
      const counted = lines
        .filter((line) => /not logged one by one: 503: .*ECONNREFUSED/.test(line))
        .reduce((sum, line) => sum + Number(line.split(' ')[0]), 0);
      expect(failed + counted).toBe(200);
      expect(lines.some((line) => /^rate limits counted in this process alone, the database is away: .*ECONNREFUSED/.test(line))).toBe(
        true,
      );
    } finally {
      libraryReports.mockRestore();
      tokens.stop();
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});
