import { allLists } from '../src/admin/lists';
import { csrfTokenOf, mergeCookies } from '../bench/admin-client';
import { adminPages, latencyStats, pagePasses, resolvePage, withinRatio, type ListShape } from '../bench/admin-pages';
import { deepPageAtBoth, type AdminPageResult } from '../bench/admin-measure';
import { slowPages } from '../bench/admin-isolation';
import { heaviest, TEAM_TARGETS } from '../bench/admin-team';
import { parseOptions } from '../bench/options';

const options = { deepPage: 400, bothDirections: true };

describe('bench --only admin: the pages, from the lists’ definitions', () => {
  const { pages, samples, skipped } = adminPages(allLists, options);
  const names = pages.map((p) => p.name);

  test('every list: first page, deep page, each filter, each sort both ways (the default order once)', () => {
    for (const list of allLists) {
      const own = pages.filter((p) => p.list?.path === list.path);
      expect(own.filter((p) => p.list?.variant === 'first')).toHaveLength(1);
      expect(own.find((p) => p.list?.variant === 'deep')?.query).toEqual({ page: '400' });
      const sorts = own.filter((p) => p.list?.variant === 'sort').map((p) => `${p.query.sort as string} ${p.query.dir as string}`);
      expect(sorts).toHaveLength(Object.keys(list.sorts).length * 2 - 1);
      expect(sorts).not.toContain(`${list.defaultSort.sort} ${list.defaultSort.dir}`);
      // Every filter is asked for, alone or with its pair (a date range, an item picker).
      const asked = new Set(own.filter((p) => p.list?.variant === 'filter').flatMap((p) => Object.keys(p.query)));
      for (const [name, def] of Object.entries(list.filters))
        if (!def.aliasOf) expect([list.path, name, asked.has(name)]).toEqual([list.path, name, true]);
    }
    expect(skipped).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
  });

  test('realistic values: booleans both ways, enums each value, week and month, a drawn rider, sampled 3PL and item', () => {
    expect(names).toContain('/admin/checks is_validation=0');
    expect(names).toContain('/admin/checks is_validation=1');
    expect(names).toContain('/admin/equipment/exchanges replacement_type=Lost');
    expect(names).toContain('/admin/checks check_date_from=2026-06-01&check_date_to=2026-06-07');
    expect(names).toContain('/admin/checks check_date_from=2026-06-01&check_date_to=2026-06-30');
    expect(names).toContain('/admin/checks rider_id=<random rider>');
    expect(names).toContain('/admin/checks 3pl=<3pl>');
    expect(names).toContain('/admin/equipment/assignments product_id=<item#0>&variation_id=<item#1>');
    expect(samples).toContainEqual({
      key: '/equipment/assignments item',
      list: '/equipment/assignments',
      columns: ['a.product_id', 'a.variation_id'],
    });
    expect(samples).toContainEqual({ key: '/checks tpatroller_id', list: '/checks', columns: ['pc.patroller_id'] });
  });

  test('the pages that are not lists', () => {
    for (const name of [
      '/admin',
      '/admin as_of=<asOf>',
      '/admin/attention',
      '/admin/attention as_of=<asOf>',
      '/admin/checks/:check',
      '/admin/riders/:rider',
      '/admin/riders/:rider/report',
      '/admin/reports 3pl_name=<3pl_name>',
      '/admin/attention 3pl=<3pl_name>',
      '/admin/reports rider_id=<random rider>',
      '/admin/search q=<surname>',
      '/admin/lookup/riders q=<surname>',
    ])
      expect(names).toContain(name);
    expect(pages.find((p) => p.name === '/admin/reports 3pl_name=<3pl_name>')?.statuses).toEqual([200, 400]);
  });

  test('a filter or sort added to a list is benchmarked without editing the bench', () => {
    const list: ListShape = {
      path: '/things',
      filters: {
        colour: { type: 'text', column: 't.colour', label: 'Colour', description: '' },
        size: { type: 'enum', values: ['S', 'M'], label: 'Size', description: '' },
        odd: { type: 'text', label: 'Odd', description: '', where: () => undefined },
      },
      sorts: { made_at: {}, colour: {} },
      defaultSort: { sort: 'made_at', dir: 'desc' },
    };
    const derived = adminPages([list], { deepPage: 7, bothDirections: false });
    expect(derived.pages.filter((p) => p.list).map((p) => p.name)).toEqual([
      '/admin/things',
      '/admin/things page=7',
      '/admin/things colour=<colour>',
      '/admin/things size=S',
      '/admin/things size=M',
      '/admin/things sort=made_at&dir=asc',
      '/admin/things sort=colour&dir=asc',
    ]);
    expect(derived.skipped).toEqual([
      { list: '/things', filter: 'odd', reason: 'a text filter without a column: no value to pick from the dataset' },
    ]);
  });

  test('a page resolves per dataset: samples looked up, ids drawn from its range', () => {
    const values = {
      samples: { '/equipment/assignments item': ['16', '49'] },
      ranges: { rider: { min: 100001, max: 100010 }, check: { min: 1, max: 5 } },
    };
    const item = pages.find((p) => p.name === '/admin/equipment/assignments product_id=<item#0>&variation_id=<item#1>')!;
    expect(resolvePage(item, values)).toBe('/admin/equipment/assignments?product_id=16&variation_id=49');
    const rider = pages.find((p) => p.name === '/admin/riders/:rider/report')!;
    expect(resolvePage(rider, values, () => 0)).toBe('/admin/riders/100001/report');
    expect(resolvePage(rider, values, () => 0.9999)).toBe('/admin/riders/100010/report');
    const company = pages.find((p) => p.name === '/admin/checks 3pl=<3pl>')!;
    expect(() => resolvePage(company, values)).toThrow('no value of "/checks 3pl"');
    expect(resolvePage(company, { ...values, samples: { '/checks 3pl': ["Road Runner's & Co"] } })).toBe(
      '/admin/checks?3pl=Road+Runner%27s+%26+Co',
    );
  });
});

describe('bench --only admin: figures and targets', () => {
  test('median, p95 (nearest rank) and max', () => {
    expect(latencyStats([5, 1, 3])).toEqual({ n: 3, medianMs: 3, p95Ms: 5, maxMs: 5 });
    expect(latencyStats([4, 1, 3, 2])).toMatchObject({ medianMs: 2.5, p95Ms: 4 });
    expect(latencyStats(Array.from({ length: 20 }, (_, i) => i + 1))).toMatchObject({ p95Ms: 19 });
    expect(latencyStats([]).medianMs).toBeNaN();
  });

  test('a page passes at <= 300 ms, within 1.5x either way of the smaller size, with only expected answers', () => {
    expect(pagePasses({ medianMs: 300, compareMedianMs: 200, unexpected: 0 })).toBe(true);
    expect(pagePasses({ medianMs: 301, compareMedianMs: 300, unexpected: 0 })).toBe(false);
    expect(pagePasses({ medianMs: 100, compareMedianMs: 60, unexpected: 0 })).toBe(false);
    expect(pagePasses({ medianMs: 100, compareMedianMs: 160, unexpected: 0 })).toBe(false);
    expect(pagePasses({ medianMs: 100, compareMedianMs: 100, unexpected: 1 })).toBe(false);
    expect(pagePasses({ medianMs: NaN, compareMedianMs: 100, unexpected: 0 })).toBe(false);
    expect(withinRatio(3, 2, 1.5)).toBe(true);
    expect(withinRatio(2, 3, 1.5)).toBe(true);
  });

  test('the isolation’s slow pages: the slowest deep or sorted list pages that answered, then deep pages', () => {
    const { pages } = adminPages(allLists, options);
    const result = (name: string, medianMs: number, unexpected = 0) =>
      ({ name, page: pages.find((p) => p.name === name)!, main: { one: { medianMs }, unexpected } }) as unknown as AdminPageResult;
    const results = [
      result('/admin', 5000),
      result('/admin/checks sort=id&dir=asc', 900),
      result('/admin/checks page=400', 800, 1),
      result('/admin/equipment/returns page=400', 700),
    ];
    expect(slowPages(results, pages).map((p) => p.name)).toEqual([
      '/admin/checks sort=id&dir=asc',
      '/admin/equipment/returns page=400',
      '/admin/checks page=400',
      '/admin/equipment/assignments page=400',
    ]);
  });
});

describe('bench --only admin: the deep page at both sizes', () => {
  const deep = adminPages(allLists, options).pages.find((p) => p.name === '/admin/checks page=400')!;
  /** The smaller dataset's side, as a list of `pages` pages answers; records the pages asked. */
  const sideOf = (pages: number) => {
    const asked: number[] = [];
    const browser = {
      text: async (path: string) => {
        const n = Number(new URL(path, 'http://x').searchParams.get('page'));
        asked.push(n);
        return { status: 200, body: n > pages ? '<p class="notice">Page 9 is past the end</p>' : '<table></table>' };
      },
    };
    return { side: { browser, values: { samples: {}, ranges: {} } } as unknown as Parameters<typeof deepPageAtBoth>[1], asked };
  };

  test('a page that exists at the smaller size is kept, asked once', async () => {
    const { side, asked } = sideOf(1000);
    expect(await deepPageAtBoth(deep, side)).toBe(deep);
    expect(asked).toEqual([400]);
  });

  test('past the end there: the last page there, for both sizes, and the name says so', async () => {
    for (const pages of [1, 2, 113, 399]) {
      const { side, asked } = sideOf(pages);
      const page = await deepPageAtBoth(deep, side);
      expect(page.query).toEqual({ page: String(pages) });
      expect(page.name).toBe(`/admin/checks page=${pages} (400 is past the end at the smaller size)`);
      expect(asked.length).toBeLessThanOrEqual(10);
    }
  });
});

describe('bench --only admin: signing in as a browser', () => {
  test('the _csrf hidden input and the cookies', () => {
    expect(csrfTokenOf('<form><input type="hidden" name="_csrf" value="abc-123"><input name="username"></form>')).toBe('abc-123');
    expect(csrfTokenOf('<form></form>')).toBeUndefined();
    const jar = new Map<string, string>();
    mergeCookies(jar, ['rider_equipment.sid=s%3Aone; Path=/admin; HttpOnly']);
    mergeCookies(jar, ['rider_equipment.sid=s%3Atwo; Path=/admin; HttpOnly; SameSite=Lax']);
    expect([...jar]).toEqual([['rider_equipment.sid', 's%3Atwo']]);
  });
});

describe('bench --only admin: the team scenario', () => {
  test('asked for by its options: 8 supervisors by default, none with --admin-team 0, alone with --admin-team-only', () => {
    expect(parseOptions(['--only', 'admin'])).toEqual(expect.objectContaining({ adminTeam: 8, adminTeamOnly: false }));
    expect(parseOptions(['--only', 'admin', '--admin-team', '0']).adminTeam).toBe(0);
    expect(parseOptions(['--only', 'admin', '--admin-team-only', '--admin-team', '3'])).toEqual(
      expect.objectContaining({ adminTeam: 3, adminTeamOnly: true }),
    );
    expect(() => parseOptions(['--admin-team', 'many'])).toThrow(/--admin-team must be a whole number/);
  });

  test('targets: p95 300 ms up to 100,000 riders, 450 ms past it; the API at 0.7x its rate alone', () => {
    expect([TEAM_TARGETS.p95Ms(10000), TEAM_TARGETS.p95Ms(100000), TEAM_TARGETS.p95Ms(1000000)]).toEqual([300, 300, 450]);
    expect(TEAM_TARGETS.minApiRatio).toBe(0.7);
  });

  test('the pages that took most of the clients’ time come first, with their share and median', () => {
    const answer = (name: string, ms: number) => ({ page: { name }, ms });
    const answers = [answer('/admin', 10), answer('/admin', 30), answer('/admin/checks page=400', 50), answer('/admin/checks', 10)];
    expect(heaviest(answers, 2)).toEqual([
      { page: '/admin/checks page=400', answers: 1, medianMs: 50, share: 0.5 },
      { page: '/admin', answers: 2, medianMs: 20, share: 0.4 },
    ]);
  });
});
