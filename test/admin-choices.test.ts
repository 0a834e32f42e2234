// Filters picked by name (issue: supervisors know "Delivery Bag / Large Box" and "Ahmed Khan", not
// their ids): the item picker, names typed where an id goes, the rider lookup, and the chips that
// name the filters in force. The URL keeps the ids, so links, CSV and the API stay as they are.
import request from 'supertest';
import { testApp, type TestApp } from './support/app';

let t: TestApp;
beforeAll(() => (t = testApp('fixture')));
afterAll(() => t.close());

const chips = (html: string) =>
  [...html.matchAll(/<li><span class="chip-label">([^<]*):<\/span> <bdi>([^<]*)<\/bdi> <a href="([^"]*)">/g)].map(
    ([, label, text, href]) => ({ label, text: text.replace(/&amp;/g, '&'), href: href.replace(/&amp;/g, '&') }),
  );

describe('the item picker', () => {
  it('offers every item in one select grouped by category, each product also as "any variation"', async () => {
    const html = (await request(t.app).get('/admin/equipment/assignments').expect(200)).text;
    const select = /<select id="f-item" name="item" data-searchable>([^]*?)<\/select>/.exec(html)![1];
    const groups = [...select.matchAll(/<optgroup label="([^"]*)">([^]*?)<\/optgroup>/g)].map(([, label, body]) => [
      label,
      [...body.matchAll(/<option value="([^"]*)">([^<]*)<\/option>/g)].map(([, value, text]) => `${value} ${text}`),
    ]);
    expect(groups).toEqual([
      ['Bags', ['20: Delivery Bag (any variation)', '20:21 Delivery Bag / Large Box']],
      ['Helmets', ['10: Helmet (any variation)', '10:12 Helmet / L', '10:11 Helmet / M']],
    ]);
    // The two id fields it stands for are not drawn.
    expect(html).not.toContain('name="product_id"');
    expect(html).not.toContain('name="variation_id"');
  });

  it('turns a submitted item into the ids with a 303, keeping the other filters and the list settings', async () => {
    const res = await request(t.app).get('/admin/equipment/assignments?item=10%3A12&active=1&sort=rider_id&per_page=50').expect(303);
    expect(res.headers.location).toBe('/admin/equipment/assignments?active=1&sort=rider_id&per_page=50&product_id=10&variation_id=12');
    expect((await request(t.app).get('/admin/equipment/assignments?item=20%3A').expect(303)).headers.location).toBe(
      '/admin/equipment/assignments?product_id=20',
    );
    expect((await request(t.app).get('/admin/equipment/assignments?item=&rider_id=101').expect(303)).headers.location).toBe(
      '/admin/equipment/assignments?rider_id=101',
    );
    // The exchanges' two pickers, and the CSV address, the same way.
    expect((await request(t.app).get('/admin/equipment/exchanges?item=10%3A11&new_item=10%3A12').expect(303)).headers.location).toBe(
      '/admin/equipment/exchanges?product_id=10&variation_id=11&new_product_id=10&new_variation_id=12',
    );
    expect((await request(t.app).get('/admin/equipment/returns.csv?item=10%3A11').expect(303)).headers.location).toBe(
      '/admin/equipment/returns.csv?product_id=10&variation_id=11',
    );
  });

  it('keeps in the address only the fields that were set: Apply sends every field of the form', async () => {
    const applied = await request(t.app)
      .get('/admin/checks?tpatroller_id=&rider_id=101&check_date_from=&check_date_to=&result=&3pl=&sort=checked_at&dir=desc')
      .expect(303);
    expect(applied.headers.location).toBe('/admin/checks?rider_id=101&sort=checked_at&dir=desc');
    expect((await request(t.app).get('/admin/equipment/returns?rider_id=&condition=').expect(303)).headers.location).toBe(
      '/admin/equipment/returns',
    );
    // A field given twice is not dropped silently: the page says so.
    await request(t.app).get('/admin/checks?rider_id=&rider_id=101').expect(400);
  });

  it('takes a page size between the offered ones as the nearest, and a page past any list as past the end', async () => {
    for (const [asked, nearest] of [
      ['30', '25'],
      ['40', '50'],
      ['1000', '100'],
      ['0', '25'],
    ])
      expect((await request(t.app).get(`/admin/checks?per_page=${asked}`).expect(303)).headers.location).toBe(
        `/admin/checks?per_page=${nearest}`,
      );
    const far = await request(t.app).get('/admin/checks?page=99999999').expect(303);
    expect(far.headers.location).toBe('/admin/checks?page=1000000');
    const html = (await request(t.app).get(far.headers.location).expect(200)).text;
    expect(html).toContain('is past the end');
    expect(html).toContain('Go to the last page');
  });

  it('shows the ids of the URL as the selected item, and as a chip by name', async () => {
    const html = (await request(t.app).get('/admin/equipment/assignments?product_id=10&variation_id=12').expect(200)).text;
    expect(html).toContain('<option value="10:12" selected>Helmet / L</option>');
    expect(chips(html)).toEqual([{ label: 'Item', text: 'Helmet / L', href: '/admin/equipment/assignments' }]);
    // A variation alone, as the API allows, selects its item too.
    expect((await request(t.app).get('/admin/equipment/returns?variation_id=11').expect(200)).text).toContain(
      '<option value="10:11" selected>Helmet / M</option>',
    );
  });
});

describe('names where ids go', () => {
  it('takes a rider or patroller name that matches exactly one person, any letter case, as the ID', async () => {
    expect((await request(t.app).get('/admin/checks?rider_id=ahmed&3pl=Swift%20%26%20Co').expect(303)).headers.location).toBe(
      '/admin/checks?rider_id=101&3pl=Swift+%26+Co',
    );
    expect((await request(t.app).get('/admin/checks?tpatroller_id=patroller%20two').expect(303)).headers.location).toBe(
      '/admin/checks?tpatroller_id=2',
    );
  });

  it('says when a name fits several people, and keeps what was typed', async () => {
    const res = await request(t.app).get('/admin/checks?tpatroller_id=Patroller').expect(400);
    expect(res.text).toContain('“Patroller” matches several patrollers: pick one from the suggestions, or give the ID');
    expect(res.text).toContain('name="tpatroller_id" type="text" value="Patroller"');
  });
});

describe('the chips of the filters in force', () => {
  it('name each filter, people by name and ID, and link to the list without it', async () => {
    const html = (
      await request(t.app)
        .get(
          '/admin/checks?rider_id=101&tpatroller_id=1&3pl=Swift%20%26%20Co&is_validation=1&check_date_from=2024-01-01&sort=id&per_page=50&page=2',
        )
        .expect(200)
    ).text;
    expect(chips(html)).toEqual([
      {
        label: 'Patroller',
        text: 'Patroller One (1)',
        href: '/admin/checks?rider_id=101&3pl=Swift+%26+Co&is_validation=1&check_date_from=2024-01-01&sort=id&per_page=50',
      },
      {
        label: 'Rider',
        text: 'Ahmed Khan (101)',
        href: '/admin/checks?tpatroller_id=1&3pl=Swift+%26+Co&is_validation=1&check_date_from=2024-01-01&sort=id&per_page=50',
      },
      {
        label: 'Checked from',
        text: '2024-01-01',
        href: '/admin/checks?rider_id=101&tpatroller_id=1&3pl=Swift+%26+Co&is_validation=1&sort=id&per_page=50',
      },
      {
        label: 'ID valid',
        text: 'Passed',
        href: '/admin/checks?rider_id=101&tpatroller_id=1&3pl=Swift+%26+Co&check_date_from=2024-01-01&sort=id&per_page=50',
      },
      {
        label: '3PL',
        text: 'Swift & Co',
        href: '/admin/checks?rider_id=101&tpatroller_id=1&is_validation=1&check_date_from=2024-01-01&sort=id&per_page=50',
      },
    ]);
  });

  it('say so for an ID nobody has, and are absent without filters', async () => {
    expect(chips((await request(t.app).get('/admin/equipment/riders?rider_id=999').expect(200)).text)).toEqual([
      { label: 'Rider', text: '999 (no such rider)', href: '/admin/equipment/riders' },
    ]);
    expect((await request(t.app).get('/admin/equipment/riders').expect(200)).text).not.toContain('class="chips"');
  });
});

describe('GET /admin/lookup/riders', () => {
  it('reads several spaces in a row as one', async () => {
    expect((await request(t.app).get('/admin/lookup/riders?q=sara%20%20ALI').expect(200)).body).toEqual([
      { value: '102', label: 'Sara Ali (102) · 100%_Express' },
    ]);
  });

  it('suggests riders whose name holds the text, or with that ID, as value and label', async () => {
    const res = await request(t.app).get('/admin/lookup/riders?q=AR').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    // By name, in the database's order (C collation).
    expect(res.body).toEqual([
      { value: '105', label: 'Lee Park (105) · swift & co' },
      { value: '107', label: 'No Gear Yet (107) · Swift & Co' },
      { value: '103', label: 'Omar "O" Neil (103) · O\'Neil "Quick" Riders' },
      { value: '102', label: 'Sara Ali (102) · 100%_Express' },
    ]);
    expect((await request(t.app).get('/admin/lookup/riders?q=104').expect(200)).body).toEqual([
      { value: '104', label: 'محمد علي (104) · توصيل سريع' },
    ]);
  });

  it('answers nothing for one letter, and a problem for a bad query', async () => {
    expect((await request(t.app).get('/admin/lookup/riders?q=a').expect(200)).body).toEqual([]);
    const bad = await request(t.app)
      .get(`/admin/lookup/riders?q=${'x'.repeat(256)}`)
      .expect(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(bad.body.errors.q[0]).toMatch(/at most 255 characters/);
  });
});
