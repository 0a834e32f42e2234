// Writes PNGs of the main admin pages, at a laptop width and a phone width, so anyone can look at
// them without a database of their own. Run with `npm run screenshots` (see docs/DEVELOPMENT.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/bootstrap';
import { createPool } from '../../src/db/pool';
import { projectRoot } from '../../src/paths';
import { serve } from './app';
import { launchChromium } from './browser';

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800, deviceScaleFactor: 1, isMobile: false },
  { name: 'phone', width: 390, height: 844, deviceScaleFactor: 2, isMobile: true },
] as const;

const MAX_HEIGHT = 2400;

/** The pages, as paths; `{...}` parts are filled from the data once it is known. */
const PAGES: Array<[name: string, path: string]> = [
  ['home', '/admin?as_of={latest}'],
  ['attention', '/admin/attention?as_of={latest}'],
  ['checks', '/admin/checks'],
  ['checks-filtered', '/admin/checks?is_validation=0&3pl={company}'],
  ['checks-invalid', '/admin/checks?rider_id=12.5&check_date_from=2024-02-30'],
  ['assignments-by-item', '/admin/equipment/assignments?product_id={product}&variation_id={variation}'],
  ['check', '/admin/checks/{check}'],
  ['assignments', '/admin/equipment/assignments?active=1'],
  ['riders', '/admin/equipment/riders'],
  ['returns', '/admin/equipment/returns'],
  ['exchanges', '/admin/equipment/exchanges?replacement_type=Lost'],
  ['rider', '/admin/riders/{rider}'],
  ['report', '/admin/riders/{rider}/report'],
  ['attention-unchecked', '/admin/attention/unchecked'],
  ['search', '/admin/search?q=al'],
  ['questionnaire', '/admin/questionnaire?country_id=2'],
  ['not-found', '/admin/no-such-page'],
];

export async function takeScreenshots(outDir = path.join(projectRoot, 'screenshots')): Promise<string[]> {
  const log = (message: string) => console.log(message);
  // Without DATABASE_URL: a throwaway embedded PostgreSQL with the demo data, apart from `npm start`'s.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rider-equipment-screenshots-'));
  fs.chmodSync(tmp, 0o755);
  // AUTH=off: API tokens guard /v2 only, which the pages shown here do not call.
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    LOG_REQUESTS: '0',
    AUTH: 'off',
    EMBEDDED_PG_DIR: path.join(tmp, 'pg'),
  });
  const database = await openDatabase(config, log);
  const pool = createPool(database.url, config);
  const server = await serve(createApp({ pool, config, log }));
  const browser = await launchChromium();
  const written: string[] = [];
  try {
    const one = async (sql: string) => Object.values((await pool.query(sql)).rows[0] ?? {})[0] as string;
    const fill: Record<string, string> = {
      latest: await one(`SELECT to_char(max(checked_at), 'YYYY-MM-DD') FROM patrol_checks`),
      company: encodeURIComponent(await one('SELECT name FROM companies ORDER BY id LIMIT 1')),
      product: await one('SELECT product_id FROM assignments ORDER BY id LIMIT 1'),
      variation: await one('SELECT variation_id FROM assignments ORDER BY id LIMIT 1'),
      // A check with a note, images, answers and items shows every part of the detail page.
      check: await one(`SELECT pc.id FROM patrol_checks pc WHERE cardinality(fake_id_images) > 0
                          AND EXISTS (SELECT 1 FROM patrol_check_items i WHERE i.check_id = pc.id) ORDER BY pc.id LIMIT 1`),
      rider: await one(`SELECT rider_id FROM assignments GROUP BY rider_id ORDER BY count(*) DESC, rider_id LIMIT 1`),
    };
    fs.mkdirSync(outDir, { recursive: true });
    for (const viewport of VIEWPORTS) {
      const context = await browser.newContext({
        viewport: { width: viewport.width, height: viewport.height },
        deviceScaleFactor: viewport.deviceScaleFactor,
        isMobile: viewport.isMobile,
      });
      const page = await context.newPage();
      for (const [name, template] of PAGES) {
        const url = server.base + template.replace(/\{(\w+)\}/g, (_m, key: string) => fill[key] ?? '');
        await page.goto(url, { waitUntil: 'load' });
        const file = path.join(outDir, `${name}-${viewport.name}.png`);
        // The whole page, up to a few screens: a list's 25th row adds nothing its 5th does not show.
        const height = (await page.evaluate('document.documentElement.scrollHeight')) as number;
        await page.screenshot({
          path: file,
          fullPage: true,
          clip: { x: 0, y: 0, width: viewport.width, height: Math.min(height, MAX_HEIGHT) },
        });
        written.push(file);
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
    await pool.end();
    await database.embedded?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return written;
}
