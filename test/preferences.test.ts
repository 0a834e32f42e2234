// A supervisor's own choice of how the pages look (src/admin/preferences.ts, access.supervisor_preferences):
// the system's light or dark by default, or always one; kept from one sign-in to the next; refused when
// it is none of them; each supervisor's own.
import { createSupervisor } from '../src/auth/supervisors';
import { testAppWithAuth, type TestApp } from './support/app';
import { csrfToken, one, parseHtml, textOf } from './support/html';
import { signIn as signInAs, type Agent } from './support/attention-scenario';

let t: TestApp;
const password = 'prefs-pass-123456';

beforeAll(async () => {
  t = await testAppWithAuth('preferences');
  await createSupervisor(t.owner, { username: 'night', password });
  await createSupervisor(t.owner, { username: 'day', password });
});
afterAll(() => t.close());

const signIn = (username: string): Promise<Agent> => signInAs(t, username, password);
const themeOf = async (agent: Agent, path = '/admin') =>
  parseHtml((await agent.get(path).expect(200)).text)
    .querySelector('html')!
    .getAttribute('data-theme') ?? null;

it('follows the device until a supervisor chooses; the choice is theirs, and outlives the session', async () => {
  const night = await signIn('night');
  expect(await themeOf(night)).toBeNull();
  const page = (await night.get('/admin/preferences').expect(200)).text;
  expect(
    [...parseHtml(page).querySelectorAll('input[name="theme"]')].map((i) => [i.getAttribute('value'), i.hasAttribute('checked')]),
  ).toEqual([
    ['system', true],
    ['light', false],
    ['dark', false],
  ]);
  await night
    .post('/admin/preferences')
    .type('form')
    .send({ _csrf: csrfToken(page), theme: 'dark' })
    .expect(303);
  const after = (await night.get('/admin/preferences').expect(200)).text;
  expect(textOf(one(after, 'p[role="status"]'))).toBe('The pages look: Dark.');
  expect(parseHtml(after).querySelector('html')!.getAttribute('data-theme')).toBe('dark');
  expect(await themeOf(night, '/admin/attention')).toBe('dark');
  // Another supervisor's pages are not theirs.
  expect(await themeOf(await signIn('day'))).toBeNull();

  // Signed out and in again: still dark.
  await night
    .post('/admin/sign-out')
    .type('form')
    .send({ _csrf: csrfToken(after) });
  expect(await themeOf(await signIn('night'))).toBe('dark');

  const again = await signIn('night');
  const form = (await again.get('/admin/preferences').expect(200)).text;
  await again
    .post('/admin/preferences')
    .type('form')
    .send({ _csrf: csrfToken(form), theme: 'light' })
    .expect(303);
  expect(await themeOf(again)).toBe('light');
  const { rows } = await t.pool.query(
    `SELECT p.theme FROM access.supervisor_preferences p JOIN access.supervisors s ON s.id = p.supervisor_id WHERE s.username = 'night'`,
  );
  expect(rows).toEqual([{ theme: 'light' }]);
});

it('refuses a theme that is none of them, and a form without the session’s token', async () => {
  const day = await signIn('day');
  const page = (await day.get('/admin/preferences').expect(200)).text;
  const refused = await day
    .post('/admin/preferences')
    .type('form')
    .send({ _csrf: csrfToken(page), theme: 'purple' })
    .expect(400);
  expect(refused.text).toContain('theme must be one of: system, light, dark.');
  await day.post('/admin/preferences').type('form').send({ theme: 'dark' }).expect(403);
  await expect(
    t.owner.query(
      `INSERT INTO access.supervisor_preferences (supervisor_id, theme) SELECT id, 'purple' FROM access.supervisors WHERE username = 'day'`,
    ),
  ).rejects.toThrow(/violates check constraint/);
  expect(await themeOf(day)).toBeNull();
});
