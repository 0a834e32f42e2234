import express from 'express';
import request from 'supertest';
import { scopedAdminApp, testApp, type TestApp } from './support/app';
import { optionsOf } from './support/html';

// A return's Condition and an exchange's Exchange type are selects of the values present in the
// data, within the supervisor's 3PL, as the 3PL select is; a value from an old link stays visible.
let t: TestApp;
let scoped: express.Express;
beforeAll(() => {
  t = testApp('fixture');
  scoped = scopedAdminApp(t.pool);
});
afterAll(() => t.close());

describe('selects of the values present', () => {
  it('offer every condition and exchange type in the data, in order, after "Any"', async () => {
    const returns = (await request(t.app).get('/admin/equipment/returns').expect(200)).text;
    expect(optionsOf(returns, '#f-return_condition')).toEqual([
      ['', 'Any'],
      ['Damaged', 'Damaged'],
      ['Good', 'Good'],
    ]);
    const exchanges = (await request(t.app).get('/admin/equipment/exchanges').expect(200)).text;
    expect(optionsOf(exchanges, '#f-exchange_type')).toEqual([
      ['', 'Any'],
      ['Lost item', 'Lost item'],
      ['Size change', 'Size change'],
      ['تلف', 'تلف'],
    ]);
  });

  it('offer a supervisor limited to one 3PL only the values of its riders', async () => {
    // Swift & Co's riders made exchanges 7001 and 7003, and no return.
    const exchanges = (await request(scoped).get('/admin/equipment/exchanges').expect(200)).text;
    expect(optionsOf(exchanges, '#f-exchange_type')).toEqual([
      ['', 'Any'],
      ['Size change', 'Size change'],
      ['تلف', 'تلف'],
    ]);
    const returns = (await request(scoped).get('/admin/equipment/returns').expect(200)).text;
    expect(optionsOf(returns, '#f-return_condition')).toEqual([['', 'Any']]);
  });

  it('keep a value from an old link selected, saying that none match, and filter by it', async () => {
    const html = (await request(t.app).get('/admin/equipment/returns?return_condition=Broken').expect(200)).text;
    expect(optionsOf(html, '#f-return_condition')).toEqual([
      ['', 'Any'],
      ['Broken', 'Broken (none match)'],
      ['Damaged', 'Damaged'],
      ['Good', 'Good'],
    ]);
    expect(html).toContain('<option value="Broken" selected>');
    expect(html).toContain('No returns match these filters.');
    const chosen = (await request(t.app).get('/admin/equipment/exchanges?exchange_type=Lost%20item').expect(200)).text;
    expect(chosen).toContain('<option value="Lost item" selected>Lost item</option>');
  });
});
