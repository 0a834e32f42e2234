// The start banner's psql line (src/db/psql-line.ts), and `npm start` saying it builds first.
import fs from 'node:fs';
import path from 'node:path';
import { embeddedPsql, urlPsql } from '../src/db/psql-line';
import { useDatabase } from './support/databases';
import { buildOnce, withServer } from './support/server-process';
import { eventually } from './support/wait';

jest.setTimeout(90000);

describe('the banner’s psql line', () => {
  it('for the embedded server: user postgres on loopback, its port and database, the password read from its file', () => {
    expect(embeddedPsql(41237, '/srv/app/.data/postgres', 'rider_equipment')).toBe(
      'PGPASSWORD="$(cat /srv/app/.data/postgres.password)" psql -h 127.0.0.1 -p 41237 -U postgres rider_equipment',
    );
    expect(embeddedPsql(5, "/a b/it's", 'db')).toBe(`PGPASSWORD="$(cat '/a b/it'\\''s.password')" psql -h 127.0.0.1 -p 5 -U postgres db`);
  });

  it('for a DATABASE_URL: host, port, user and database, never its password', () => {
    expect(urlPsql('postgres://postgres@127.0.0.1:5432/dev10k')).toBe('psql -h 127.0.0.1 -p 5432 -U postgres dev10k');
    const withPassword = urlPsql('postgres://app%20user:s3cr%40t-PW@db.example:6432/rider%20db?sslmode=require');
    expect(withPassword).toBe(
      "PGSSLMODE=require psql -h db.example -p 6432 -U 'app user' 'rider db'   (asks for the password in DATABASE_URL, not shown here)",
    );
    expect(withPassword).not.toMatch(/s3cr|PW/);
    expect(urlPsql('postgresql://db.example/riders')).toBe('psql -h db.example -p 5432 riders');
  });
});

describe('the started server', () => {
  beforeAll(buildOnce);

  it('prints the psql line for its DATABASE_URL in the banner, without the password in it', async () => {
    // The test server trusts local connections, so a made-up password still connects.
    const url = new URL(await useDatabase('demo'));
    url.password = 'not-to-be-printed-42';
    await withServer({ DATABASE_URL: url.toString() }, async (server) => {
      await eventually(() => server.output().includes('  psql:'), { what: "the banner's psql line" });
      const banner = server.output();
      const database = decodeURIComponent(url.pathname.slice(1));
      expect(banner).toContain(
        `  psql:     psql -h ${url.hostname} -p ${url.port || '5432'} -U ${decodeURIComponent(url.username)} ${database}   (asks for the password in DATABASE_URL, not shown here)\n`,
      );
      expect(banner).not.toContain('not-to-be-printed-42');
    });
  });
});

describe('npm start', () => {
  it('says it compiles before it builds (prestart)', () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
    expect(scripts.prestart).toMatch(/^echo '[^']*Compiling[^']*' && npm run -s build$/);
  });
});
