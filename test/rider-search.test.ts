// The rider search's matching (searchRiders, over rider_name_key() of migration 015): letter case,
// runs of spaces and accents ignored, on either side, and answered from the trigram index.
import { toNative } from '../src/db/knex';
import { searchColumns, searchRiders } from '../src/queries/rider-equipment';
import { testApp, type TestApp } from './support/app';
import { rolledBack } from './support/rolled-back';

let t: TestApp;
beforeAll(() => {
  t = testApp('fixture');
});
afterAll(() => t.close());

describe('finding riders by name', () => {
  it('ignores letter case, runs of spaces and accents, in the name and in the term', async () => {
    await rolledBack(t.pool, async (client) => {
      await client.query(`INSERT INTO riders (id, name, company_id, country_id) VALUES
        (90001, 'José  Álvarez', 1, 1), (90002, 'Zoë Ørsted', 1, 1), (90003, 'Jose Alvarado', 1, 1)`);
      const names = async (term: string) => {
        const { text, values } = toNative(searchColumns(searchRiders(term)));
        return (await client.query(text, values)).rows.map((r) => r.name);
      };
      expect(await names('jose alvarez')).toEqual(['José  Álvarez']);
      expect(await names('JOSÉ ÁLVAREZ')).toEqual(['José  Álvarez']);
      expect(await names('josé')).toEqual(['Jose Alvarado', 'José  Álvarez']);
      expect(await names('zoe')).toEqual(['Zoë Ørsted']);
      expect(await names('orsted')).toEqual(['Zoë Ørsted']);
      expect(await names('sara ALI')).toEqual(['Sara Ali']);
      expect(await names('%')).toEqual([]);
    });
  });

  it('finds a name written surname first, with or without a comma', async () => {
    await rolledBack(t.pool, async (client) => {
      await client.query(
        `INSERT INTO riders (id, name, company_id, country_id) VALUES (90004, 'Reem Malik', 1, 1), (90005, 'Reem Hassan', 1, 1)`,
      );
      const names = async (term: string) => {
        const { text, values } = toNative(searchColumns(searchRiders(term)));
        return (await client.query(text, values)).rows.map((r) => r.name);
      };
      expect(await names('Malik, Reem')).toEqual(['Reem Malik']);
      expect(await names('malik reem')).toEqual(['Reem Malik']);
      expect(await names('Reem Malik')).toEqual(['Reem Malik']);
      expect(await names('reem,')).toEqual(['Reem Hassan', 'Reem Malik']);
      expect(await names(' , ')).toEqual([]); // no word: nobody, never everybody
    });
  });

  it('can be answered from the trigram index over the kept name key', async () => {
    await rolledBack(t.pool, async (client) => {
      // The fixture's few riders are read whole or in name order; without those paths, the index serves.
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_indexscan = off');
      const { text, values } = toNative(searchColumns(searchRiders('alvarez')));
      const plan = (await client.query(`EXPLAIN ${text}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('riders_name_key_trgm_idx');
    });
  });
});
