import pg from 'pg';
import { alignListZone } from '../src/db/bootstrap';
import { databaseUrl, testDatabases, useDatabase } from './support/databases';

// The kept list entries are written in one zone (rider_list_zone); at start the service aligns them
// with TIME_ZONE on a database it owns, and says what to run on any other. (On a copy of the fixture:
// the zone it commits would change what other files read of theirs.)
const url = () => databaseUrl(process.env.TEST_ADMIN_URL!, testDatabases().committed);

async function zone(): Promise<string> {
  const client = new pg.Client(url());
  await client.connect();
  try {
    return (await client.query('SELECT zone FROM rider_list_zone')).rows[0].zone;
  } finally {
    await client.end();
  }
}

describe('alignListZone', () => {
  beforeAll(() => useDatabase('committed'));
  afterAll(async () => {
    await alignListZone(url(), 'UTC', () => undefined, true); // as the other tests expect it
  });

  it('on a database it does not own, leaves the entries and logs the command to run', async () => {
    const logs: string[] = [];
    await alignListZone(url(), 'Asia/Dubai', (m) => logs.push(m), false);
    expect(await zone()).toBe('UTC');
    expect(logs).toEqual([expect.stringContaining("SELECT rider_list_set_zone('Asia/Dubai');")]);
  });

  it('on its own database, rewrites the entries for TIME_ZONE, and then has nothing to do', async () => {
    const logs: string[] = [];
    await alignListZone(url(), 'Asia/Dubai', (m) => logs.push(m), true);
    expect(await zone()).toBe('Asia/Dubai');
    expect(logs).toEqual([expect.stringContaining('Rewriting the kept rider list entries for TIME_ZONE Asia/Dubai')]);
    await alignListZone(url(), 'Asia/Dubai', (m) => logs.push(m), true);
    expect(logs).toHaveLength(1);
  });

  it('never stops a start: a database that cannot be reached is left for later', async () => {
    const logs: string[] = [];
    await expect(alignListZone('postgres://nobody@127.0.0.1:1/none', 'Asia/Dubai', (m) => logs.push(m), false)).resolves.toBeUndefined();
    expect(logs).toEqual([]);
  });
});
