// A full /v2/product-returns, /v2/assign-list and /v2/product-exchanges answer starts at once at fleet
// size: PostgreSQL reads the rows in their date index's order (the index alone: migrations 024 and 026)
// and looks the names up, with no sort of every row before the first one leaves (at 100,000 and
// 1,000,000 riders the planner's own choice; docs/SCALING.md).
// The names of the few 3PLs, products, variations and users are looked up without a join (withName in
// src/queries/list-keys.ts), so the plan is one index scan, the planner's own choice on the large demo
// (4,000 riders) as at fleet size. Read-only.
import { toNative } from '../src/db/knex';
import * as assignments from '../src/queries/assignments';
import * as productExchanges from '../src/queries/product-exchanges';
import * as productReturns from '../src/queries/product-returns';
import { testApp, type TestApp } from './support/app';

let t: TestApp;
beforeAll(() => {
  t = testApp('large');
});
afterAll(() => t.close());

type PlanNode = { 'Node Type': string; 'Index Name'?: string; Plans?: PlanNode[] };
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** The plan PostgreSQL picks. */
async function planOf(sql: string, values: unknown[]): Promise<PlanNode[]> {
  const client = await t.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${sql}`, values);
    return nodes(rows[0]['QUERY PLAN'][0].Plan);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

describe.each([
  ['/v2/product-returns', productReturns.wire, 'product_returns_date_idx', /\b(assignments|riders)\b/],
  ['/v2/assign-list', assignments.wire, 'assignments_date_idx', /\briders\b/],
  ['/v2/product-exchanges', productExchanges.wire, 'product_exchanges_date_idx', /\b(assignments|riders)\b/],
] as const)('the full %s', (_operation, wire, index, grows) => {
  it('is read from the date index alone, in order, joining and sorting nothing', async () => {
    const { text, values } = toNative(wire({}));
    const plan = await planOf(text, values);
    expect(plan.filter((n) => /Sort|Join|Nested Loop/.test(n['Node Type']))).toEqual([]);
    expect(plan[0]).toEqual(expect.objectContaining({ 'Node Type': 'Index Only Scan', 'Index Name': index }));
  });

  it('joins no table that grows with the fleet but its own (the rider, 3PL and items are kept on each row)', async () => {
    const { text } = toNative(wire({}));
    expect(text).not.toMatch(grows);
  });
});
