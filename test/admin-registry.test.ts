import { built, adminLists } from '../src/admin/registry';
import { defineList } from '../src/admin/list-definition';
import { checks } from '../src/admin/lists';
import { sql } from '../src/db/knex';
import { DEFAULT_ATTENTION } from '../src/config';
import { defineParams } from '../src/filters/define';
import { timeKey } from '../src/queries/keyset';
import type { RiderRuleDefinition } from '../src/rules/define';
import { keptKeys } from '../src/queries/list-keys';

// One registry of the admin lists, each list's statements built once when it is made: a filter on a
// column its table does not keep (which would make every page of the list answer 500) stops the start.
describe('the admin lists’ registry', () => {
  it('holds the five lists and one per rider rule, each built', () => {
    expect(adminLists(DEFAULT_ATTENTION).map((list) => list.path)).toEqual([
      '/checks',
      '/equipment/assignments',
      '/equipment/riders',
      '/equipment/returns',
      '/equipment/exchanges',
      '/attention/failing-checks',
      '/attention/overdue-items',
      '/attention/unchecked',
    ]);
  });

  it('refuses a list whose filter reads a column the list does not keep, naming the list and the filter', () => {
    const params = defineParams({ patroller: { type: 'text', column: 'pt.name', label: 'Patroller', description: '' } });
    const broken = { ...checks, path: '/broken', keys: () => keptKeys('patrol_checks as pc', params, {}, 'pc.company_id') };
    expect(() => built([broken])).toThrow(/The admin list \/broken cannot be built: keptKeys: filter patroller reads pt\.name/);
  });
});

describe('a list’s sort names', () => {
  // Never called: what matters is that TypeScript refuses each line marked @ts-expect-error (npm run
  // typecheck fails if it does not), and takes the names the list offers.
  const definition = () =>
    defineList({
      path: '/typo',
      title: 'Typo',
      intro: '',
      section: 'checks',
      noun: ['row', 'rows'],
      filters: defineParams({}),
      sorts: { checked_at: { keys: [timeKey('pc.checked_at')] } },
      tieBreak: 'pc.id',
      // @ts-expect-error: "checkd_at" is no sort of the list
      defaultSort: { sort: 'checkd_at', dir: 'desc' },
      filtered: () => sql('patrol_checks as pc'),
      columns: (builder) => builder,
      table: [
        { key: 'checked_at', label: 'Checked at', sort: 'checked_at' },
        // @ts-expect-error: "rider" is no sort of the list
        { key: 'rider_id', label: 'Rider ID', sort: 'rider' },
      ],
      csvName: 'typo',
    });

  it('are checked by the type: a default sort or a column’s sort the list does not offer does not compile', () => {
    expect(typeof definition).toBe('function');
  });
});

describe('a rule’s sort names', () => {
  // As for the lists: never called, the @ts-expect-error lines are the test (npm run typecheck). The
  // sorts are named here as defineRule infers them from the list's `sorts` in a rule's file.
  const rule = (): RiderRuleDefinition<'typo-rule', 'since'> =>
    ({
      name: 'typo-rule',
      subject: 'rider',
      title: 'Typo',
      means: () => '',
      counted: '',
      noun: ['rider', 'riders'],
      columns: [
        { key: 'since', label: 'Since', sort: 'since' },
        // @ts-expect-error: "sinse" is no sort of the rule's list
        { key: 'last', label: 'Last', sort: 'sinse' },
      ],
      list: {
        core: () => sql('riders as r'),
        columns: (builder) => builder,
        sorts: { since: { keys: [timeKey('r.since')] } },
        // @ts-expect-error: "rider_id" is no sort of the rule's list
        defaultSort: { sort: 'rider_id', dir: 'asc' },
        tieBreak: 'r.id',
        subject: 'r.id',
      },
      evidence: () => sql.raw('now()'),
      openPoint: { rows: () => sql('riders as r'), sentence: () => [] },
    }) as const;

  it('are checked by the type: a default sort or a column’s sort the rule’s list does not offer does not compile', () => {
    expect(typeof rule).toBe('function');
  });
});
