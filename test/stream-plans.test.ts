// A full /v2/product-returns answer starts at once at fleet size: PostgreSQL reads the returns in the
// date index's order (the index alone: migration 024) and looks the names up, with no sort of every row
// before the first one leaves (at 100,000 and 1,000,000 riders the planner's own choice; docs/SCALING.md).
// On the large demo (4,000 riders), where a sort of 12,000 rows is cheaper still, the plan without sorts
// shows that the index alone serves the answer. Read-only.
import { toNative } from '../src/db/knex';
import * as productReturns from '../src/queries/product-returns';
import { testApp, type TestApp } from './support/app';

let t: TestApp;
beforeAll(() => {
  t = testApp('large');
});
afterAll(() => t.close());

type PlanNode = { 'Node Type': string; 'Index Name'?: string; Plans?: PlanNode[] };
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** The plan PostgreSQL picks when sorting is not an option (as it is not worth it at fleet size). */
async function planWithoutSorts(sql: string, values: unknown[]): Promise<PlanNode[]> {
  const client = await t.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL enable_sort = off');
    const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${sql}`, values);
    return nodes(rows[0]['QUERY PLAN'][0].Plan);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

describe('the full /v2/product-returns', () => {
  it('can be read from the date index alone, in order, sorting nothing', async () => {
    const { text, values } = toNative(productReturns.wire({}));
    const plan = await planWithoutSorts(text, values);
    expect(plan.filter((n) => n['Node Type'] === 'Sort' || n['Node Type'] === 'Incremental Sort')).toEqual([]);
    expect(plan.find((n) => n['Index Name'] === 'product_returns_date_idx')?.['Node Type']).toBe('Index Only Scan');
  });

  it('joins no table that grows with the fleet but the returns (the rider, 3PL and item are kept on each)', async () => {
    const { text } = toNative(productReturns.wire({}));
    expect(text).not.toMatch(/\b(assignments|riders)\b/);
  });
});
