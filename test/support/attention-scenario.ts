// Rows for every "Needs attention" rule on a copy of the fixture, and a signed-in supervisor marking
// them handled: test/attention-handling*.test.ts and test/attention-rules.test.ts.
import request from 'supertest';
import type { TestApp } from './app';
import { csrfToken, hiddenFields, one, textOf } from './html';
import { applied } from './rolled-back';

/**
 * Failing: rider 105 (swift & co, company 5) failed its last two checks, yesterday and the day before.
 * Losses: Swift & Co (company 1) lost a helmet two days ago. Not checked lately: rider 107 (Swift & Co)
 * holds a helmet since 2025 and was never checked. Rider 101's items are past their exchange day.
 */
export async function addAttentionRows(t: TestApp): Promise<void> {
  await t.owner.query(`
    INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid) VALUES
      (9201, 105, 1, now() - interval '2 days', true, true, false),
      (9202, 105, 2, now() - interval '1 day', false, true, true);
    INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type, deleted_at) VALUES
      (1120, 107, 10, 11, '2025-01-01 09:00:00+00', 1, 0, 'assign', NULL),
      (1121, 9007199254740993, 10, 11, '2024-09-01 09:00:00+00', 1, 0, 'assign', now() - interval '2 days'),
      (1122, 9007199254740993, 10, 11, now() - interval '2 days', 1, 0, 'exchange', NULL);
    INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by) VALUES
      (7201, 1121, 1122, now() - interval '2 days', 'Lost item', 'Lost', 1);
  `);
  await applied(t.owner);
}

export type Agent = ReturnType<typeof request.agent>;

/** A supervisor's browser, signed in with the sign-in form. */
export async function signIn(t: TestApp, username: string, password: string): Promise<Agent> {
  const agent = request.agent(t.app);
  const form = await agent.get('/admin/sign-in').expect(200);
  await agent
    .post('/admin/sign-in')
    .type('form')
    .send({ username, password, _csrf: csrfToken(form.text), next: '/admin' })
    .expect(303);
  return agent;
}

/** Marks a row handled from the page the agent is on, with the token that page carries. */
export async function markHandled(agent: Agent, rule: string, subject: string, note: string, until = '') {
  const page = (await agent.get('/admin/attention').expect(200)).text;
  return agent
    .post(`/admin/attention/${rule}/handled`)
    .type('form')
    .send({ _csrf: csrfToken(page), subject, note, until, back: `/admin/attention#${rule}` });
}

/**
 * Marks "all the rows the filters select" of a rule's list handled, as a browser does from `pageHtml`
 * (the list's page): its batch form's hidden fields, then the confirmation's. Returns the confirmation's words.
 */
export async function markAllHandled(agent: Agent, rule: string, pageHtml: string, note: string): Promise<string> {
  const batch = { ...hiddenFields(pageHtml, 'form#batch-form'), which: 'all', note };
  const confirm = await agent.post(`/admin/attention/${rule}/batch`).type('form').send(batch).expect(200);
  const confirmed = hiddenFields(confirm.text, 'form.retry-form');
  await agent
    .post(`/admin/attention/${rule}/batch`)
    .type('form')
    .send({ ...confirmed, note, confirm: 'yes' })
    .expect(303);
  return textOf(one(confirm.text, '.confirm-box'));
}
