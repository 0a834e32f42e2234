// Accessibility in real Chromium: axe-core (from npm, injected by playwright-core) finds no serious or
// critical violation on any admin page, the sign-in and the printable report; every form control has
// a label, and keyboard focus is visible.
import type { Browser } from 'playwright-core';
import { serve, testApp, testAppWithAuth, type TestApp } from '../support/app';
import { axeViolations, launchChromium } from '../support/browser';

jest.setTimeout(120000);

let t: TestApp;
let signedOut: TestApp;
let server: Awaited<ReturnType<typeof serve>>;
let signIn: Awaited<ReturnType<typeof serve>>;
let browser: Browser;

beforeAll(async () => {
  t = testApp('demo');
  signedOut = await testAppWithAuth('demo');
  server = await serve(t.app);
  signIn = await serve(signedOut.app);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await signIn?.close();
  await t?.close();
  await signedOut?.close();
});

/** axe-core's findings on a page, with the <details> that `open` selects opened first. */
async function checked(base: string, path: string, open?: string): Promise<{ violations: string[]; unlabelled: string[] }> {
  const context = await browser.newContext({ bypassCSP: true });
  try {
    const page = await context.newPage();
    const res = await page.goto(`${base}${path}`);
    expect(res?.status()).toBeLessThan(500);
    if (open) await page.evaluate(`document.querySelectorAll(${JSON.stringify(open)}).forEach((d) => { d.open = true; })`);
    // Every visible form control has a name a screen reader announces (a label, or aria-label).
    const unlabelled = (await page.evaluate(`[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
      .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
      .map((el) => el.outerHTML.slice(0, 80))`)) as string[];
    return { violations: await axeViolations(page), unlabelled };
  } finally {
    await context.close();
  }
}

const riderWithChecks = async () => (await t.pool.query('SELECT rider_id AS id FROM patrol_checks ORDER BY id LIMIT 1')).rows[0].id;

describe('axe-core on every page', () => {
  const pages = [
    '/admin',
    '/admin/attention',
    '/admin/checks',
    '/admin/checks?rider_id=12.5',
    '/admin/equipment/assignments',
    '/admin/equipment/riders',
    '/admin/equipment/returns',
    '/admin/equipment/exchanges',
    '/admin/search?q=a',
    '/admin/questionnaire',
    '/admin/no-such-page',
  ];
  it.each(pages)('%s', async (path) => {
    expect(await checked(server.base, path)).toEqual({ violations: [], unlabelled: [] });
  });

  it('/admin/attention with every rule’s weeks open, and for one 3PL', async () => {
    expect(await checked(server.base, '/admin/attention', 'details.flow')).toEqual({ violations: [], unlabelled: [] });
    expect(await checked(server.base, '/admin/attention?3pl=Swift%20%26%20Co', 'details.flow')).toEqual({ violations: [], unlabelled: [] });
  });

  it('a patrol check, a rider and the rider’s report', async () => {
    const id = await riderWithChecks();
    const [check] = (await t.pool.query('SELECT id FROM patrol_checks WHERE rider_id = $1 LIMIT 1', [id])).rows;
    for (const path of [`/admin/checks/${check.id}`, `/admin/riders/${id}`, `/admin/riders/${id}/report`]) {
      expect({ path, ...(await checked(server.base, path)) }).toEqual({ path, violations: [], unlabelled: [] });
    }
  });

  it('the sign-in page, and after signing out', async () => {
    expect(await checked(signIn.base, '/admin/sign-in')).toEqual({ violations: [], unlabelled: [] });
    expect(await checked(signIn.base, '/admin/sign-in?signed_out=1')).toEqual({ violations: [], unlabelled: [] });
  });

  it.each([1366, 390])('the sign-in at %i px: one card with the product’s name, its fields no wider than the card', async (width) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${signIn.base}/admin/sign-in?signed_out=1`);
      expect(await page.locator('h1').innerText()).toMatch(/^Rider equipment\s+Supervisors$/);
      expect(await page.locator('p[role="status"]').innerText()).toBe('You are signed out.');
      const card = (await page.locator('.sign-in-card').boundingBox())!;
      expect(card.width).toBeLessThanOrEqual(Math.min(width - 2 * 16, 24 * 16) + 0.5);
      for (const field of ['#username', '#password', 'button[type=submit]']) {
        const box = (await page.locator(field).boundingBox())!;
        expect({ field, inside: box.x >= card.x && box.x + box.width <= card.x + card.width }).toEqual({ field, inside: true });
      }
      expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    } finally {
      await context.close();
    }
  });
});

describe('the keyboard', () => {
  it('shows where the focus is on links, fields and buttons', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.base}/admin/equipment/assignments`);
      const outlines: string[] = [];
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press('Tab');
        outlines.push(
          (await page.evaluate(
            `(() => { const s = getComputedStyle(document.activeElement); return document.activeElement.tagName + ' ' + s.outlineStyle + ' ' + s.outlineWidth; })()`,
          )) as string,
        );
      }
      // Every stop drew a solid 3 px outline.
      for (const outline of outlines) expect(outline).toMatch(/^(A|INPUT|SELECT|BUTTON) solid 3px$/);
    } finally {
      await context.close();
    }
  });
});
