import request from 'supertest';
import { links } from '../src/html/links';
import { testApp, testAppWithAuth, type TestApp } from './support/app';

// src/html/links.ts is the one list of the site's addresses; every link and redirect is built from
// it. Each address must lead to a page that exists, so a route that moves without it fails here.

let t: TestApp;
beforeAll(() => {
  t = testApp('fixture', { CHROMIUM_PATH: 'off' });
});
afterAll(() => t.close());

const pages: Array<[string, string]> = [
  ['home', links.home()],
  ['attention', links.attention({ as_of: '2024-06-30' })],
  ['attention CSV', links.attentionCsv('unchecked', { as_of: '2024-06-30' })],
  ['checks', links.checks({ rider_id: '101' })],
  ['one check', links.check(9001)],
  ['assignments', links.assignments()],
  ['riders with equipment', links.ridersWithEquipment({ active: '1' })],
  ['returns', links.returns()],
  ['exchanges', links.exchanges()],
  ['a list by its path', links.list('/equipment/returns')],
  ['one rider', links.rider(101)],
  ['a rider report', links.riderReport(101)],
  ['a batch of reports', links.reports({ rider_id: '101' })],
  ['questionnaire', links.questionnaire({ country_id: '1' })],
  ['questionnaire CSV', links.questionnaireCsv({ country_id: '1' })],
  ['search', links.search({ q: 'a' })], // several riders: a single match opens the rider instead
  ['rider lookup', `${links.riderLookup}?q=Sa`],
  ...links.stylesheets.map((href): [string, string] => ['admin stylesheet', href]),
  ['report stylesheet', `${links.reportAssets}/report.css`],
];

describe('every address in src/html/links.ts', () => {
  it.each(pages)('%s (%s) answers 200', async (_what, address) => {
    expect((await request(t.app).get(address)).status).toBe(200);
  });

  it('builds queries the way the forms submit them, without empty values', () => {
    expect(links.checks({ rider_id: '101', '3pl': 'Swift & Co', is_validation: '' })).toBe('/admin/checks?rider_id=101&3pl=Swift+%26+Co');
    expect(links.rider(9007199254740993n.toString())).toBe('/admin/riders/9007199254740993');
  });

  it('and a route that does not exist is still a 404', async () => {
    expect((await request(t.app).get('/admin/no-such-page')).status).toBe(404);
  });
});

describe('with sign-in on', () => {
  it('the sign-in address is where a visitor is sent, and it answers', async () => {
    const secured = await testAppWithAuth();
    try {
      const res = await request(secured.app).get(links.checks()).expect(303);
      expect(res.headers.location).toBe(`${links.signIn()}?next=${encodeURIComponent(links.checks())}`);
      await request(secured.app).get(links.signIn()).expect(200);
    } finally {
      await secured.close();
    }
  });
});
