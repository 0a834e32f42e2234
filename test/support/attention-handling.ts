// The set-up of the "Needs attention" work-queue tests (test/attention-handling*.test.ts): a copy of
// the fixture of their own with rows for every rule, three supervisors (two leads and one of Swift & Co
// alone) who sign in for real, and what the tests read of the pages.
import { createSupervisor } from '../../src/auth/supervisors';
import { testAppWithAuth, type TestApp } from './app';
import type { Database } from './databases';
import { one, tableRows } from './html';
import { addAttentionRows, type Agent } from './attention-scenario';

/** The password of every supervisor handlingApp makes. */
export const password = 'handling-pass-123';

/** The app on `database` with its supervisors and rows, and the days the tests name (as of today). */
export async function handlingApp(database: Database): Promise<{ t: TestApp; today: string; tomorrow: string; dayAfter: string }> {
  const t = await testAppWithAuth(database);
  await createSupervisor(t.owner, { username: 'lead-a', password });
  await createSupervisor(t.owner, { username: 'lead-b', password });
  await createSupervisor(t.owner, { username: 'swift-lead', password, company: 'Swift & Co' });
  await addAttentionRows(t);
  const { rows } = await t.pool.query(
    `SELECT to_char(current_date, 'YYYY-MM-DD') AS today, to_char(current_date + 1, 'YYYY-MM-DD') AS tomorrow,
            to_char(current_date + 2, 'YYYY-MM-DD') AS "dayAfter"`,
  );
  return { t, ...rows[0] };
}

/** One rule's section of the attention page: its rows (the first cell of each) and the cells of each. */
export async function section(agent: Agent, rule: string, query = '') {
  const html = (await agent.get(`/admin/attention${query}`).expect(200)).text;
  const list = one(html, `section#${rule}`).querySelector('table.list');
  const rows = list ? tableRows(list) : [];
  return { html, ids: rows.map((row) => row[0]), rows };
}

/** The rule's count on the home page. */
export async function homeCount(agent: Agent, rule: string): Promise<number> {
  const html = (await agent.get('/admin').expect(200)).text;
  const found = new RegExp(`href="/admin/attention#${rule}"><span class="figure">([0-9,]+)</span>`).exec(html);
  if (!found) throw new Error(`no count of ${rule} on the home page`);
  return Number(found[1].replace(/,/g, ''));
}

/** How many handlings the database holds, live or undone. */
export const countHandled = async (t: TestApp) =>
  Number((await t.pool.query('SELECT count(*) FROM access.attention_handled')).rows[0].count);
