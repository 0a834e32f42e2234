import { built, adminLists } from '../src/admin/registry';
import { checks } from '../src/admin/lists';
import { DEFAULT_ATTENTION } from '../src/config';
import { defineParams } from '../src/filters/define';
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
