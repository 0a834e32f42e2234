import express from 'express';
import request from 'supertest';
import { scopedAdminApp, testApp, type TestApp } from './support/app';
import { optionsOf } from './support/html';

// A supervisor limited to one 3PL sees only its riders, on every page and in every download. The
// access layer leaves the supervisor in res.locals; here a stand-in does, in front of the router.
let t: TestApp;
let app: express.Express;
beforeAll(() => {
  t = testApp('fixture');
  app = scopedAdminApp(t.pool);
});
afterAll(() => t.close());

// Patrollers who checked a rider of Swift & Co (checks 9001 and 9004), by name.
const SCOPED_PATROLLERS = ['9007199254740995', '1'];
const ids = (html: string, path: string) => [...html.matchAll(new RegExp(`<a href="/admin/${path}/(\\d+)"`, 'g'))].map(([, id]) => id);

describe('a supervisor limited to one 3PL', () => {
  it('sees only its riders in the lists, whatever the filters say', async () => {
    expect(ids((await request(app).get('/admin/checks').expect(200)).text, 'checks')).toEqual(['9001', '9004']);
    expect(ids((await request(app).get('/admin/checks?rider_id=102').expect(200)).text, 'checks')).toEqual([]);
    const riders = (await request(app).get('/admin/equipment/riders').expect(200)).text;
    expect([...new Set(ids(riders, 'riders'))]).toEqual(['101', '9007199254740993']);
    expect((await request(app).get('/admin/equipment/returns').expect(200)).text).toContain('No returns match.');
  });

  it('cannot open another 3PL’s rider or check, or find them by search', async () => {
    await request(app).get('/admin/riders/102').expect(404);
    await request(app).get('/admin/checks/9002').expect(404);
    await request(app).get('/admin/riders/101').expect(200);
    expect((await request(app).get('/admin/search?q=102').expect(200)).text).toContain('No rider matches');
    expect([...new Set(ids((await request(app).get('/admin/search?q=e').expect(200)).text, 'riders'))]).toEqual([
      '101',
      '9007199254740993',
      '107',
    ]);
  });

  it('gets downloads, figures and choices of its own 3PL only', async () => {
    const csv = (await request(app).get('/admin/checks.csv').expect(200)).text.trimEnd().split('\n');
    expect(csv.slice(1).map((line) => line.split(',')[0])).toEqual(['9001', '9004']);
    const home = (await request(app).get('/admin?as_of=2024-06-01').expect(200)).text;
    expect(home).toMatch(/<span class="figure">3<\/span> <span class="what">items held now/);
    expect(home).toMatch(
      /<span class="figure">2<\/span> <span class="what">riders holding equipment<\/span><\/a><p class="sub">of 3 riders/,
    );
    const form = (await request(app).get('/admin/checks').expect(200)).text;
    expect(optionsOf(form, 'select#f-3pl').map(([value]) => value)).toEqual(['', 'Swift & Co']);
    // Needs attention's own form offers the same 3PLs; a name from an old link stays, marked.
    const queue = (await request(app).get('/admin/attention?3pl=Elsewhere').expect(200)).text;
    expect(optionsOf(queue, 'select#f-3pl')).toEqual([
      ['', 'Any'],
      ['Elsewhere', 'Elsewhere (no 3PL of this name)'],
      ['Swift & Co', 'Swift & Co'],
    ]);
    // Patrollers who checked this 3PL's riders; riders looked up within it.
    expect(optionsOf(form, 'datalist#patroller-suggestions').map(([id]) => id)).toEqual(SCOPED_PATROLLERS);
    const everyone = (await request(t.app).get('/admin/lookup/riders?q=ar').expect(200)).body as Array<{ value: string }>;
    const own = (await request(app).get('/admin/lookup/riders?q=ar').expect(200)).body as Array<{ value: string; label: string }>;
    expect(own.length).toBeGreaterThan(0);
    expect(own.length).toBeLessThan(everyone.length);
    for (const rider of own) expect(rider.label).toMatch(/ · Swift & Co$/);
  });

  it('sees who is signed in and a sign-out form carrying the CSRF token', async () => {
    const html = (await request(app).get('/admin').expect(200)).text;
    expect(html).toContain('<form class="sign-out" action="/admin/sign-out" method="post">');
    expect(html).toContain('<input type="hidden" name="_csrf" value="token-123">');
    expect(html).toContain('swift-lead');
    expect((await request(app).get('/admin/nope').expect(404)).text).toContain('name="_csrf" value="token-123"');
  });
});
