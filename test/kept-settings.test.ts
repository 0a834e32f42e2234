import pg from 'pg';
import { DEFAULT_ATTENTION } from '../src/config';
import { alignKeptSettings } from '../src/db/bootstrap';
import { databaseUrl, testDatabases, useDatabase } from './support/databases';

// The kept data is written for some settings of the service: the list entries and exchange days in
// one zone (rider_list_zone), the rules' kept days for two thresholds (kept_rule_settings). At start
// the service aligns them with TIME_ZONE and ATTENTION_* on a database it owns, and says what to run
// on any other. (On a copy of the fixture: what it commits would change what other files read.)
const url = () => databaseUrl(process.env.TEST_ADMIN_URL!, testDatabases().committed);
const UTC = { timeZone: 'UTC', attention: DEFAULT_ATTENTION };
const DUBAI = { timeZone: 'Asia/Dubai', attention: DEFAULT_ATTENTION };
const STRICTER = { timeZone: 'UTC', attention: { ...DEFAULT_ATTENTION, failedChecks: 3, uncheckedDays: 30 } };

async function kept(): Promise<{ zone: string; failed_checks: number; unchecked_days: number; unchecked: number }> {
  const client = new pg.Client(url());
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT zone, failed_checks, unchecked_days,
      (SELECT count(*)::int FROM kept_rule_riders WHERE rule = 'unchecked') AS unchecked FROM rider_list_zone, kept_rule_settings`);
    return rows[0];
  } finally {
    await client.end();
  }
}

describe('alignKeptSettings', () => {
  beforeAll(() => useDatabase('committed'));
  afterAll(async () => {
    await alignKeptSettings(url(), UTC, () => undefined, true); // as the other tests expect it
  });

  it('on a database it does not own, leaves the kept data and logs the commands to run', async () => {
    const logs: string[] = [];
    await alignKeptSettings(url(), { ...DUBAI, attention: STRICTER.attention }, (m) => logs.push(m), false);
    expect(await kept()).toMatchObject({ zone: 'UTC', failed_checks: 2, unchecked_days: 60 });
    expect(logs).toEqual([
      expect.stringContaining("SELECT rider_list_set_zone('Asia/Dubai');"),
      expect.stringContaining('SELECT kept_rules_set(3, 30);'),
    ]);
  });

  it('on its own database, rewrites the list entries for TIME_ZONE, and then has nothing to do', async () => {
    const logs: string[] = [];
    await alignKeptSettings(url(), DUBAI, (m) => logs.push(m), true);
    expect((await kept()).zone).toBe('Asia/Dubai');
    expect(logs).toEqual([expect.stringContaining('Rewriting the kept rider list entries for TIME_ZONE Asia/Dubai')]);
    await alignKeptSettings(url(), DUBAI, (m) => logs.push(m), true);
    expect(logs).toHaveLength(1);
  });

  it('on its own database, rewrites the rules’ kept days for new thresholds', async () => {
    const logs: string[] = [];
    const before = await kept();
    await alignKeptSettings(url(), STRICTER, (m) => logs.push(m), true);
    const after = await kept();
    expect(after).toMatchObject({ zone: 'UTC', failed_checks: 3, unchecked_days: 30 });
    // Checked within 60 days but not within 30: more riders are in the rule for some days.
    expect(after.unchecked).toBeGreaterThanOrEqual(before.unchecked);
    expect(logs).toEqual([
      expect.stringContaining('Rewriting the kept rider list entries for TIME_ZONE UTC'),
      expect.stringContaining('SELECT kept_rules_set(3, 30);'),
    ]);
  });

  it('never stops a start: a database that cannot be reached is left for later', async () => {
    const logs: string[] = [];
    await expect(alignKeptSettings('postgres://nobody@127.0.0.1:1/none', DUBAI, (m) => logs.push(m), false)).resolves.toBeUndefined();
    expect(logs).toEqual([]);
  });
});
