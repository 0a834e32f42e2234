// Every sort a list offers is read in an index's order, never sorted after the fact, and every sort
// a column or a list's default names is one the list offers: a sort added without its index, or a
// typo in a column's sort name, fails here rather than on a big fleet or as a dead header link.
import { adminLists } from '../src/admin/registry';
import { DEFAULT_ATTENTION } from '../src/config';
import { toNative } from '../src/db/knex';
import { pageKeys, type Dir } from '../src/queries/keyset';
import { testApp, type TestApp } from './support/app';

const lists = adminLists(DEFAULT_ATTENTION);

describe.each(lists.map((list) => [list.path, list] as const))('the list %s', (_path, list) => {
  it('names only sorts it offers, in its columns and its default', () => {
    const offered = Object.keys(list.sorts);
    expect(offered).toContain(list.defaultSort.sort);
    const unknown = list.table
      .filter((column) => column.sort && !offered.includes(column.sort))
      .map((column) => `${column.key}: ${column.sort}`);
    expect(unknown).toEqual([]);
  });
});

/** The Sort nodes of a plan (EXPLAIN FORMAT JSON), with the tables read below each. */
type PlanNode = { 'Node Type': string; 'Relation Name'?: string; Plans?: PlanNode[] };
const tablesUnder = (node: PlanNode): string[] => [
  ...(node['Relation Name'] ? [node['Relation Name']] : []),
  ...(node.Plans ?? []).flatMap(tablesUnder),
];
/**
 * A sort by 3PL or product: its groups in name order, each group's first rows read by a LIMIT from an
 * index (the nested loop's inner side), then put in order within the group: a sort of a page's rows.
 */
const groupsMerged = (node: PlanNode) =>
  node['Node Type'] === 'Incremental Sort' &&
  node.Plans?.[0]?.['Node Type'] === 'Nested Loop' &&
  node.Plans[0].Plans?.[1]?.['Node Type'] === 'Limit';
const sortsOf = (node: PlanNode): Array<{ type: string; tables: string[] }> => [
  ...(/Sort/.test(node['Node Type']) && !groupsMerged(node) ? [{ type: node['Node Type'], tables: tablesUnder(node) }] : []),
  ...(node.Plans ?? []).flatMap(sortsOf),
];
/** The small tables a sort by 3PL or by product reads its groups from, in name order: sorting them is free. */
const GROUP_TABLES = new Set(['companies', 'products']);

describe('each sort of each list, both ways', () => {
  let t: TestApp;
  beforeAll(() => {
    t = testApp('fixture');
  });
  afterAll(() => t.close());

  it.each(
    lists.flatMap((list) =>
      Object.keys(list.sorts).flatMap((sort) =>
        (['asc', 'desc'] as Dir[]).map((dir) => [`${list.path} ${sort} ${dir}`, list, sort, dir] as const),
      ),
    ),
  )('%s reads its first page in an index’s order, with sorting switched off', async (_name, list, sort, dir) => {
    const values = {};
    const source = () => (list.keys ?? list.filtered)(values);
    const keys = toNative(
      pageKeys({ source, sort: list.sorts[sort], dir, tieBreak: list.tieBreak, backwards: false, offset: 0, limit: 26 }),
    );
    const client = await t.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_sort = off');
      const { rows } = await client.query({ text: `EXPLAIN (FORMAT JSON) ${keys.text}`, values: keys.values });
      const sorts = sortsOf(rows[0]['QUERY PLAN'][0].Plan).filter((s) => s.tables.some((table) => !GROUP_TABLES.has(table)));
      expect(sorts).toEqual([]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
