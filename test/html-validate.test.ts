// The admin pages and the printable report under html-validate's recommended rules: none of its WCAG
// rules (labels, alternative texts, link texts…) finds anything; and every table
// header says what it heads (a scope: html-validate asks only that a scope given be valid).
import request from 'supertest';
import { HtmlValidate } from 'html-validate';
import { testApp, type TestApp } from './support/app';
import { parseHtml } from './support/html';

let t: TestApp;
beforeAll(() => {
  t = testApp('demo');
});
afterAll(() => t.close());

const validator = new HtmlValidate({ extends: ['html-validate:recommended'] });

/** What html-validate's WCAG rules find in `html`, and each table header without a scope, one line each. */
async function wcagFindings(html: string): Promise<string[]> {
  const report = await validator.validateString(html);
  const rules = report.results.flatMap((result) =>
    result.messages.filter((m) => m.ruleId.startsWith('wcag/')).map((m) => `${m.ruleId}: ${m.message} (${m.selector})`),
  );
  const unscoped = parseHtml(html)
    .querySelectorAll('th:not([scope])')
    .map((th) => `th without a scope: ${th.textContent.trim()}`);
  return [...rules, ...unscoped];
}

const findingsOf = async (path: string) => wcagFindings((await request(t.app).get(path).expect(200)).text);

describe('html-validate, recommended rules', () => {
  it('would find an image without a text, and a table header without a scope', async () => {
    const page = (body: string) => `<!DOCTYPE html><html lang="en"><head><title>t</title></head><body>${body}</body></html>`;
    expect(await wcagFindings(page('<img src="x.png">'))).toEqual([expect.stringMatching(/^wcag\/h37: /)]);
    expect(await wcagFindings(page('<table><tbody><tr><th>A</th></tr></tbody></table>'))).toEqual(['th without a scope: A']);
  });

  it.each([
    '/admin',
    '/admin/attention',
    '/admin/attention/overdue-items',
    '/admin/attention/unchecked/handled',
    '/admin/checks',
    '/admin/equipment/riders',
    '/admin/equipment/assignments',
    '/admin/equipment/returns',
    '/admin/equipment/exchanges',
    '/admin/questionnaire',
    '/admin/search?q=a',
  ])('%s: no WCAG finding', async (path) => {
    expect(await findingsOf(path)).toEqual([]);
  });

  it('a check, a rider and the rider’s printable report: no WCAG finding', async () => {
    const { rows } = await t.pool.query('SELECT id, rider_id FROM patrol_checks ORDER BY id LIMIT 1');
    for (const path of [`/admin/checks/${rows[0].id}`, `/admin/riders/${rows[0].rider_id}`, `/admin/riders/${rows[0].rider_id}/report`]) {
      expect({ path, findings: await findingsOf(path) }).toEqual({ path, findings: [] });
    }
  });
});
