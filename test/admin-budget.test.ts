import pg from 'pg';
import request from 'supertest';
import { testApp, type TestApp } from './support/app';
import { databaseUrl, testDatabases, useDatabase } from './support/databases';

// A page's statements have a budget (ADMIN_STATEMENT_TIMEOUT_MS): one over it is stopped and its page
// says so, with the faster ways to the same rows; the other supervisors' pages go on meanwhile, on the
// admin pool's other connections (ADMIN_POOL_MAX, as many as the machine has cores), never a 503 for them.
let t: TestApp;
let locker: pg.Client;
beforeAll(async () => {
  await useDatabase('budget');
  t = testApp('budget', { ADMIN_STATEMENT_TIMEOUT_MS: '300', ADMIN_POOL_MAX: '2' });
  locker = new pg.Client(databaseUrl(process.env.TEST_ADMIN_URL!, testDatabases().budget));
  await locker.connect();
});
afterAll(async () => {
  await locker.end();
  await t.close();
});

it('stops a page past its budget with a page that says how to narrow it, while another page answers', async () => {
  // Held by "another system": every statement on patrol checks waits, as a statement that reads for seconds would.
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE patrol_checks IN ACCESS EXCLUSIVE MODE');
  try {
    const started = Date.now();
    const [slow, other] = await Promise.all([request(t.app).get('/admin/checks?page=3'), request(t.app).get('/admin/equipment/returns')]);
    expect(slow.status).toBe(503);
    expect(slow.type).toBe('text/html');
    expect(slow.text).toContain('This page took too long');
    expect(slow.text).toContain('choose a 3PL, a shorter date range or one rider');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(other.status).toBe(200);
  } finally {
    await locker.query('ROLLBACK');
  }
  // Once the rows can be read, the page is whole again.
  await request(t.app).get('/admin/checks?page=3').expect(200);
});
