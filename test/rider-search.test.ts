// The rider search's matching (searchRiders, over rider_name_key() of migration 016): letter case,
// runs of spaces and accents ignored, on either side; read in name order from the kept bigrams of
// migration 025, which equal their definition after every kind of change to riders, and give the same
// riders in the same order as reading every rider would.
import type pg from 'pg';
import { toNative } from '../src/db/knex';
import { riderSuggestions, searchCount, searchRiders } from '../src/queries/rider-equipment';
import { testApp, type TestApp } from './support/app';
import { applied, expectKeptAfterEach, keptDrift, noDrift, rolledBack } from './support/rolled-back';

const KEPT = [
  { table: 'kept_rider_name_grams', view: 'kept_rider_name_gram_docs' },
  { table: 'kept_rider_name_gram_counts', view: 'kept_rider_name_gram_count_docs' },
] as const;

let t: TestApp;
let demo: TestApp;
beforeAll(() => {
  t = testApp('fixture');
  demo = testApp('demo');
});
afterAll(async () => Promise.all([t.close(), demo.close()]));

const namesOf = (client: pg.ClientBase) => async (term: string) => {
  const { text, values } = toNative(searchRiders(term, {}, 50));
  return (await client.query(text, values)).rows.map((r) => r.name);
};

/** The search as it was before migration 025: every rider read, each word matched, in name order. */
async function everyRiderRead(client: pg.ClientBase | pg.Pool, term: string, limit: number, companyId?: string) {
  const words = term.split(/[\s,]+/).filter(Boolean);
  const { rows } = await client.query(
    `SELECT r.id, r.name FROM riders r
      WHERE ($1::bigint IS NULL OR r.company_id = $1)
        AND ((cardinality($2::text[]) > 0 AND (SELECT bool_and(r.name_key LIKE rider_name_key('%' || replace(replace(replace(w, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%')) FROM unnest($2::text[]) w))
             OR ($3::text ~ '^[0-9]{1,18}$' AND r.id = $3::text::bigint))
      ORDER BY r.name, r.id LIMIT $4`,
    [companyId ?? null, words, term, limit],
  );
  return rows.map((r) => `${r.id} ${r.name}`);
}

describe('finding riders by name', () => {
  it('ignores letter case, runs of spaces and accents, in the name and in the term', async () => {
    await rolledBack(t.owner, async (client) => {
      await client.query(`INSERT INTO riders (id, name, company_id, country_id) VALUES
        (90001, 'José  Álvarez', 1, 1), (90002, 'Zoë Ørsted', 1, 1), (90003, 'Jose Alvarado', 1, 1)`);
      await applied(client);
      const names = namesOf(client);
      expect(await names('jose alvarez')).toEqual(['José  Álvarez']);
      expect(await names('JOSÉ ÁLVAREZ')).toEqual(['José  Álvarez']);
      expect(await names('josé')).toEqual(['Jose Alvarado', 'José  Álvarez']);
      expect(await names('zoe')).toEqual(['Zoë Ørsted']);
      expect(await names('orsted')).toEqual(['Zoë Ørsted']);
      expect(await names('sara ALI')).toEqual(['Sara Ali']);
      expect(await names('%')).toEqual([]);
      expect(await names('a%')).toEqual([]);
    });
  });

  it('finds a name written surname first, with or without a comma', async () => {
    await rolledBack(t.owner, async (client) => {
      await client.query(
        `INSERT INTO riders (id, name, company_id, country_id) VALUES (90004, 'Reem Malik', 1, 1), (90005, 'Reem Hassan', 1, 1)`,
      );
      await applied(client);
      const names = namesOf(client);
      expect(await names('Malik, Reem')).toEqual(['Reem Malik']);
      expect(await names('malik reem')).toEqual(['Reem Malik']);
      expect(await names('Reem Malik')).toEqual(['Reem Malik']);
      expect(await names('reem,')).toEqual(['Reem Hassan', 'Reem Malik']);
      expect(await names('R Malik')).toEqual(['Reem Malik']); // a one-letter word narrows, the other is looked up
      expect(await names(' , ')).toEqual([]); // no word: nobody, never everybody
    });
  });

  it('finds by words of one letter only, in the name index order', async () => {
    await rolledBack(t.owner, async (client) => {
      await client.query(`INSERT INTO riders (id, name, company_id, country_id) VALUES (90006, 'Q X', 1, 1), (90007, 'X Q', 1, 1)`);
      await applied(client);
      expect(await namesOf(client)('x q')).toEqual(['Q X', 'X Q']);
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_bitmapscan = off');
      const { text, values } = toNative(searchRiders('q', {}, 20));
      const plan = (await client.query(`EXPLAIN ${text}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('riders_name_idx');
      expect(plan).not.toMatch(/Sort/);
    });
  });

  it('reads one bigram of the kept names in their order, stopping at the page, without a sort', async () => {
    await rolledBack(demo.owner, async (client) => {
      // The demo's few hundred riders could be read whole and sorted: without those paths, the kept
      // bigrams' index gives the name order (the plans at fleet size are in docs/runs/ADMIN-BENCHMARKS.md).
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_sort = off');
      const { text, values } = toNative(riderSuggestions('Malik, Reem', {}, 20));
      const plan = (await client.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${text}`, values)).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      expect(plan).toMatch(/Index (Only )?Scan using kept_rider_name_grams_pkey on kept_rider_name_grams g/);
      // The one sort left is of the term's few bigrams, by how many riders hold each.
      expect(plan).not.toMatch(/Sort Key: g\.name/);
      expect(plan.match(/Sort Key/g)).toHaveLength(1);
    });
  });

  it('gives the riders, in the order, that reading every rider gives: names, IDs, 3PLs, caps', async () => {
    const client = await demo.pool.connect();
    try {
      const { rows } = await client.query<{ id: string; name: string }>('SELECT id, name FROM riders ORDER BY id LIMIT 40');
      const terms = new Set(['mo', 'Mo', 'moh', 'ali', 'an', 'ah', 'Malik, Reem', 'a b', 'e', 'zz', 'x', '%', '_a', String(rows[0].id)]);
      for (const { id, name } of rows) {
        const [first, last] = name.split(' ');
        terms
          .add(first.slice(0, 2))
          .add(last?.slice(1, 4) ?? first)
          .add(`${last}, ${first}`)
          .add(String(id).slice(-3));
      }
      for (const term of terms)
        for (const companyId of [undefined, '2']) {
          const scope = companyId ? { company_id: companyId } : {};
          const { text, values } = toNative(riderSuggestions(term, scope, 20));
          const found = (await client.query(text, values)).rows.map((r) => `${r.id} ${r.name}`);
          expect({ term, companyId, found }).toEqual({ term, companyId, found: await everyRiderRead(client, term, 20, companyId) });
        }
      // The search page's count, capped: exact up to the cap, cap + 1 past it.
      for (const [term, cap] of [
        ['mo', 1000],
        ['a', 10],
        ['Malik, Reem', 1000],
      ] as const) {
        const every = (await everyRiderRead(client, term, 100000)).length;
        const { text, values } = toNative(searchCount(term, {}, cap));
        expect({ term, total: Number((await client.query(text, values)).rows[0].total) }).toEqual({
          term,
          total: Math.min(every, cap + 1),
        });
      }
    } finally {
      client.release();
    }
  });
});

describe('the kept bigrams of the riders names (migration 025)', () => {
  it('equal their definition after the bulk load of the demo data', async () => {
    expect(await keptDrift(demo.owner, KEPT)).toEqual(noDrift(KEPT));
    expect((await demo.pool.query('SELECT count(*)::int AS n FROM kept_rider_name_grams')).rows[0].n).toBeGreaterThan(1000);
  });

  it('follow every kind of change to riders', async () => {
    await expectKeptAfterEach(t.owner, KEPT, [
      ['riders inserted', `INSERT INTO riders (id, name, company_id, country_id) VALUES (91001, 'Omar Ali', 1, 1), (91002, 'Li', 2, 1)`],
      ['a rider renamed', `UPDATE riders SET name = 'Omar  ÁLI-Hassan' WHERE id = 91001`],
      ['a rider renamed to a name of one letter', `UPDATE riders SET name = 'O' WHERE id = 91001`],
      ['a rider moved to another 3PL', 'UPDATE riders SET company_id = 3 WHERE id = 91002'],
      ['a rider given another id', 'UPDATE riders SET id = 91003 WHERE id = 91002'],
      ['a name of 600 letters', `UPDATE riders SET name = repeat('ab', 300) WHERE id = 91003`],
      ['a rider deleted', 'DELETE FROM riders WHERE id = 91001'],
      ['every rider renamed in one statement', `UPDATE riders SET name = name || ' Jr'`],
      ['every rider truncated', 'TRUNCATE riders CASCADE'],
    ]);
  });
});
