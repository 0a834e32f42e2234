// Real headless Chromium for the browser tests and the screenshots: Debian's chromium package,
// driven by playwright-core (which downloads no browser of its own).
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../src/reports/pdf';
import { serve, type TestApp } from './app';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not at ${CHROMIUM_PATH}. Install Debian's package (apt-get install chromium), ` +
        'or point CHROMIUM_PATH at a Chromium binary.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/**
 * For a whole test file: the app `make` builds, served on loopback, and Chromium; closed after the
 * file's tests. Read them from the returned object inside tests (they do not exist before).
 */
export function useServedApp(make: () => TestApp | Promise<TestApp>): { t: TestApp; base: string; browser: Browser } {
  const used = {} as { t: TestApp; base: string; browser: Browser; close?: () => Promise<void> };
  beforeAll(async () => {
    used.t = await make();
    const server = await serve(used.t.app);
    used.base = server.base;
    used.close = server.close;
    used.browser = await launchChromium();
  });
  afterAll(async () => {
    await used.browser?.close();
    await used.close?.();
    await used.t?.close();
  });
  return used;
}

type Violation = { id: string; impact: string; help: string; nodes: Array<{ target: string[] }> };
const axeSource = () => fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * axe-core's serious and critical violations on the page as it is now (all rules, or WCAG 2.1 A and
 * AA only), one line each. axe is put in by the DevTools protocol, which the page's CSP does not govern.
 */
export async function axeViolations(page: Page, only: 'all' | 'wcag21aa' = 'all'): Promise<string[]> {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(axeSource());
  const options =
    only === 'all'
      ? '{ resultTypes: ["violations"] }'
      : `{ runOnly: { type: "tag", values: ${JSON.stringify(WCAG_21_AA)} }, resultTypes: ["violations"] }`;
  const found = (await page.evaluate(`axe.run(document, ${options}).then((r) => r.violations)`)) as Violation[];
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}
