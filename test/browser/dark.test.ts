// Dark mode in real Chromium (public/admin/css/base.css, src/admin/preferences.ts): it follows the device's
// setting, or the supervisor's choice; every page stays clean under axe-core (contrast included) in both,
// at a desk's and a phone's size; printed, a page is light whatever the screen shows.
import type { Page } from 'playwright-core';
import { createSupervisor } from '../../src/auth/supervisors';
import { testAppWithAuth } from '../support/app';
import { axeViolations, useServedApp } from '../support/browser';

jest.setTimeout(180000);

const username = `dark-${process.pid}`;
const password = 'dark-pass-1234567';
const served = useServedApp(async () => {
  const t = await testAppWithAuth('preferences');
  await createSupervisor(t.owner, { username, password });
  return t;
});

const PAGES = ['/admin', '/admin/attention', '/admin/attention/unchecked', '/admin/checks', '/admin/riders/101', '/admin/preferences'];

async function signedIn(size: { width: number; height: number }, colorScheme: 'light' | 'dark'): Promise<Page> {
  const context = await served.browser.newContext({ bypassCSP: true, viewport: size, colorScheme });
  const page = await context.newPage();
  await page.goto(`${served.base}/admin/sign-in`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForEvent('framenavigated'), page.getByRole('button', { name: 'Sign in' }).click()]);
  await page.waitForLoadState('load');
  return page;
}
const background = (page: Page) => page.evaluate('getComputedStyle(document.documentElement).backgroundColor') as Promise<string>;
const DARK = 'rgb(18, 22, 27)';
const LIGHT = 'rgb(243, 245, 247)';

describe.each([
  { width: 1366, height: 900 },
  { width: 390, height: 844 },
])('at %o', (size) => {
  it('follows a dark device, stays clean under axe, and prints light', async () => {
    const page = await signedIn(size, 'dark');
    for (const path of PAGES) {
      await page.goto(`${served.base}${path}`);
      expect({ path, background: await background(page), violations: await axeViolations(page) }).toEqual({
        path,
        background: DARK,
        violations: [],
      });
    }
    await page.emulateMedia({ media: 'print' });
    expect(await background(page)).toBe(LIGHT);
    await page.context().close();
  });

  it('takes the supervisor’s choice over the device’s: Light on a dark device, Dark on a light one', async () => {
    const page = await signedIn(size, 'dark');
    await page.goto(`${served.base}/admin/preferences`);
    await page.getByLabel('Light', { exact: true }).check();
    await Promise.all([page.waitForEvent('framenavigated'), page.getByRole('button', { name: 'Save' }).click()]);
    await page.waitForLoadState('load');
    expect(await background(page)).toBe(LIGHT);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Dark', { exact: true }).check();
    await Promise.all([page.waitForEvent('framenavigated'), page.getByRole('button', { name: 'Save' }).click()]);
    await page.waitForLoadState('load');
    await page.context().close();

    const light = await signedIn(size, 'light');
    for (const path of PAGES) {
      await light.goto(`${served.base}${path}`);
      expect({ path, background: await background(light), violations: await axeViolations(light) }).toEqual({
        path,
        background: DARK,
        violations: [],
      });
    }
    await light.emulateMedia({ media: 'print' });
    expect(await background(light)).toBe(LIGHT);
    // Back to the device's, for the next size's first test.
    await light.emulateMedia({ media: 'screen' });
    await light.goto(`${served.base}/admin/preferences`);
    await light.getByLabel('As the device is set (light or dark)').check();
    await Promise.all([light.waitForEvent('framenavigated'), light.getByRole('button', { name: 'Save' }).click()]);
    await light.context().close();
  });
});
