// The API reference at /docs in real Chromium, under the service's own CSP (axe-core is put in through
// the DevTools protocol, which the CSP does not govern): it shows every operation of the OpenAPI
// document, an integrator can authorize and send a request, and axe-core finds no serious or critical
// violation of WCAG 2.1 A and AA at a desktop and a phone width, closed, open, sent and authorizing.
import type { Page } from 'playwright-core';
import { testAppWithAuth } from '../support/app';
import { axeViolations, useServedApp } from '../support/browser';

jest.setTimeout(120000);

// Tokens on, as the service runs by default: the document then declares the Bearer scheme.
const served = useServedApp(() => testAppWithAuth('fixture'));

/** axe's serious and critical violations of WCAG 2.1 A and AA on the page as it is now. */
const violations = (page: Page) => axeViolations(page, 'wcag21aa');

/** "GET /patrollerchecks listPatrolChecks" for each operation of the document. */
async function documentedOperations(): Promise<string[]> {
  const doc = (await (await fetch(`${served.base}/v2/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  return Object.entries(doc.paths)
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op?.operationId)
        .map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    )
    .sort();
}

/** The same for each operation the page shows (Swagger UI ends an operation's element id with its operationId). */
async function shownOperations(page: Page): Promise<string[]> {
  const shown = (await page.evaluate(`[...document.querySelectorAll('.opblock')].map((block) =>
    block.querySelector('.opblock-summary-method').textContent + ' ' +
    block.querySelector('.opblock-summary-path').dataset.path + ' ' + block.id.split('-').pop())`)) as string[];
  return shown.sort();
}

/** A page of /docs at the width, once Swagger UI has drawn it; `problems` gathers script errors and CSP violations. */
async function openDocs(width: number): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
  const context = await served.browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    // A request sent with a made-up token is answered 401, which Chromium also reports as a failed load.
    if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(message.text());
  });
  await page.goto(`${served.base}/docs`);
  await page.locator('.opblock').first().waitFor();
  return { page, problems, close: () => context.close() };
}

describe.each([1366, 390])('/docs at %i px wide', (width) => {
  it('shows every operation of the OpenAPI document, and nothing serious for axe-core', async () => {
    const { page, problems, close } = await openDocs(width);
    try {
      const operations = await documentedOperations();
      expect(operations.length).toBeGreaterThanOrEqual(14); // seven GETs and their HEADs
      expect(await shownOperations(page)).toEqual(operations);
      expect(await violations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('with the "Authorize" dialog open, then an operation open with "Try it out" and its request sent', async () => {
    const { page, problems, close } = await openDocs(width);
    try {
      await page.getByRole('button', { name: 'Authorize' }).first().click();
      const dialog = page.locator('.modal-ux');
      await dialog.getByRole('textbox').fill('made-up-token');
      expect({ dialog: await violations(page) }).toEqual({ dialog: [] });
      await dialog.getByRole('button', { name: 'Authorize' }).click();
      await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
      await dialog.waitFor({ state: 'detached' });

      // The operation's button opens it, with "Try it out" already on: its fields and Execute are there.
      const operation = page.locator('.opblock').first();
      await operation
        .getByRole('button', { name: /\/patrollerchecks/ })
        .first()
        .click();
      // Swagger UI may draw the fields a moment after the button: waited for, they must come.
      await operation.getByRole('button', { name: 'Execute' }).waitFor();
      await operation.locator('.parameters input').first().waitFor();
      expect(await operation.locator('.parameters input').count()).toBeGreaterThan(0);
      expect({ open: await violations(page) }).toEqual({ open: [] });

      await operation.getByRole('button', { name: 'Execute' }).click();
      await operation.locator('.live-responses-table').waitFor();
      // The ready curl line carries the token, and the answer (401 for a made-up token) is shown.
      expect(await operation.locator('.curl-command').textContent()).toContain("-H 'Authorization: Bearer made-up-token'");
      expect(await operation.locator('.live-responses-table tbody .response-col_status').first().textContent()).toBe('401');
      expect({ sent: await violations(page) }).toEqual({ sent: [] });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
