import { useFixtureAndDemo } from './support/app';
import { applied } from './support/rolled-back';

// riders.active_items / returned_items are kept by a trigger on assignments (migration 002).
const apps = useFixtureAndDemo();

const drift = `SELECT count(*)::int AS n FROM riders r
  CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE a.deleted_at IS NULL) AS active, count(*) FILTER (WHERE a.deleted_at IS NOT NULL) AS returned
      FROM assignments a WHERE a.rider_id = r.id) c
  WHERE (r.active_items, r.returned_items) IS DISTINCT FROM (c.active::int, c.returned::int)`;

describe('rider item counts', () => {
  it('match the assignments in the fixture and in the generated demo', async () => {
    expect((await apps.fixture.pool.query(drift)).rows[0].n).toBe(0);
    expect((await apps.demo.pool.query(drift)).rows[0].n).toBe(0);
    const { rows } = await apps.fixture.pool.query(
      'SELECT id, active_items, returned_items FROM riders WHERE id IN (101, 103, 107) ORDER BY id',
    );
    expect(rows).toEqual([
      { id: '101', active_items: 2, returned_items: 1 },
      { id: '103', active_items: 0, returned_items: 1 },
      { id: '107', active_items: 0, returned_items: 0 },
    ]);
  });

  it('follow inserts, returns, moves between riders and deletes', async () => {
    const client = await apps.fixture.owner.connect();
    const counts = async (id: number) =>
      (await applied(client), await client.query('SELECT active_items, returned_items FROM riders WHERE id = $1', [id])).rows[0];
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
                          VALUES (2001, 107, 10, 11, '2024-09-01', 1, 0, 'assign')`);
      expect(await counts(107)).toEqual({ active_items: 1, returned_items: 0 });
      await client.query(`UPDATE assignments SET deleted_at = '2024-09-02' WHERE id = 2001`);
      expect(await counts(107)).toEqual({ active_items: 0, returned_items: 1 });
      await client.query('UPDATE assignments SET rider_id = 103 WHERE id = 2001');
      expect(await counts(107)).toEqual({ active_items: 0, returned_items: 0 });
      expect(await counts(103)).toEqual({ active_items: 0, returned_items: 2 });
      await client.query('DELETE FROM assignments WHERE id = 2001');
      expect(await counts(103)).toEqual({ active_items: 0, returned_items: 1 });
      expect((await client.query(drift)).rows[0].n).toBe(0);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
