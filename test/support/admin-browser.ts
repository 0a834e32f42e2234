// The set-up of the admin pages' tests in real headless Chromium (test/browser/admin-*.test.ts): the
// demo data served (enough rows to page through), a fresh browser context for each test that fails the
// test on a blocked stylesheet, a CSP violation or a script error, and what the tests read of a list.
import type { BrowserContext, Page } from 'playwright-core';
import { testApp } from './app';
import { useServedApp } from './browser';

/**
 * For a whole test file: the demo app served and Chromium (useServedApp), and `tab.page`, a new page in
 * a context of its own before each test, closed after it. Read `tab.page` inside tests.
 */
export function useAdminBrowser() {
  const served = useServedApp(() => testApp('demo'));
  const tab = {} as { context: BrowserContext; page: Page; problems: string[] };
  beforeEach(async () => {
    tab.context = await served.browser.newContext({ acceptDownloads: true });
    tab.page = await tab.context.newPage();
    // A blocked stylesheet, a CSP violation or a script error shows up here.
    tab.problems = [];
    tab.page.on('console', (message) => {
      // A 400 page is a test's intended outcome, which Chromium also reports as a failed load.
      if (message.type() === 'error' && !/status of 400/.test(message.text())) tab.problems.push(message.text());
    });
    tab.page.on('pageerror', (error) => tab.problems.push(error.message));
  });
  afterEach(async () => {
    await tab.context.close();
    expect(tab.problems).toEqual([]);
  });

  const url = (path: string) => `${served.base}${path}`;
  const count = async (sql: string) => Number((await served.t.pool.query(sql)).rows[0].n);
  const total = async () => Number((await tab.page.locator('.summary strong').first().innerText()).replace(/,/g, ''));
  const cells = (label: string) => tab.page.locator(`tbody td[data-label="${label}"]`).allInnerTexts();
  return { served, tab, url, count, total, cells };
}
