import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import request from 'supertest';
import { closePrinters, printerFor } from '../src/reports/pdf';
import { testApp, type TestApp } from './support/app';

// Chromium prints the report HTML to PDF; pdftotext (poppler-utils) reads it back, one form feed
// per page. Both are installed here and on CI (.ci/run); a machine without them skips, saying why.
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const PDFTOTEXT = '/usr/bin/pdftotext';
const missing = [CHROMIUM, PDFTOTEXT].filter((file) => !fs.existsSync(file));
if (missing.length)
  console.warn(`Skipping the PDF report tests: ${missing.join(' and ')} not installed (apt-get install chromium poppler-utils).`);
const describeIfTools = missing.length ? describe.skip : describe;

jest.setTimeout(90000);

/** The PDF's text, page by page (pdftotext ends every page with a form feed). */
async function pages(pdf: Buffer): Promise<string[]> {
  const child = promisify(execFile)(PDFTOTEXT, ['-layout', '-enc', 'UTF-8', '-', '-'], { encoding: 'utf8', maxBuffer: 16 << 20 });
  child.child.stdin!.end(pdf);
  const { stdout } = await child;
  return stdout
    .split('\f')
    .slice(0, -1)
    .map((page) => page.replace(/\s+/g, ' '));
}

const pdfOf = (res: request.Response) => res.body as Buffer;
const binary = (res: request.Response, cb: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

describeIfTools('PDF reports printed by headless Chromium', () => {
  let t: TestApp;
  beforeAll(() => {
    t = testApp('fixture', { CHROMIUM_PATH: CHROMIUM });
  });
  afterAll(async () => {
    if (t.logs.length) console.log(t.logs.join('\n'));
    await closePrinters();
    await t.close();
  });

  it('prints one rider on one A4 page with every section, the totals, the signature lines and the page number', async () => {
    const res = await request(t.app).get('/admin/riders/101/report.pdf?paper=A4').buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('attachment; filename="rider-101-report.pdf"');
    expect(pdfOf(res).subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pages(pdfOf(res));
    expect(text).toHaveLength(1);
    for (const expected of [
      'Equipment report',
      'Ahmed Khan',
      'Swift & Co',
      'United Arab Emirates (AE)',
      'Equipment held now',
      'Delivery Bag',
      'Yes, since',
      'Still held',
      'Helmet / M → Helmet / L',
      'Size change',
      'Patroller One',
      'Totals: 2 items held · 3 assignments · 0 returns · 1 exchange · 1 patrol check',
      'Supervisor: name and signature',
      'Page 1 of 1',
    ])
      expect(text[0]).toContain(expected);
    expect(text[0]).not.toContain('PDF (A4)'); // no buttons or links on paper
    expect(text[0]).not.toContain('Back to the rider');
  });

  it('prints as_of on Letter paper', async () => {
    const res = await request(t.app)
      .get('/admin/riders/102/report.pdf?as_of=2024-05-01&paper=Letter')
      .buffer(true)
      .parse(binary)
      .expect(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="rider-102-report-2024-05-01.pdf"');
    const text = await pages(pdfOf(res));
    expect(text).toHaveLength(1);
    expect(text[0]).toContain('Equipment held at the end of 2024-05-01');
    expect(text[0]).toContain('From 2024-10-27');
    expect(text[0]).not.toContain('Damaged');
  });

  it('prints a batch of three riders on three pages, one rider per page, numbered through', async () => {
    const res = await request(t.app).get('/admin/reports.pdf?3pl_name=Swift%20%26%20Co&paper=A4').buffer(true).parse(binary).expect(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="rider-reports_3pl-SwiftCo.pdf"'); // named by its filters
    const text = await pages(pdfOf(res));
    expect(text).toHaveLength(3);
    const riders = [
      ['101', 'Ahmed Khan'],
      ['107', 'No Gear Yet'],
      ['9007199254740993', 'Big Id Rider'],
    ];
    riders.forEach(([id, name], i) => {
      expect(text[i]).toContain(id);
      expect(text[i]).toContain(name);
      expect(text[i]).toContain(`Page ${i + 1} of 3`);
      for (const [, other] of riders.filter((_r, j) => j !== i)) expect(text[i]).not.toContain(other);
    });
    expect(text[1]).toContain('Totals: 0 items held · 0 assignments');
  });

  it('prints several PDFs at once with one browser', async () => {
    const all = await Promise.all(
      ['101', '102', '104', '105', '106'].map((id) =>
        request(t.app).get(`/admin/riders/${id}/report.pdf?paper=A4`).buffer(true).parse(binary).expect(200),
      ),
    );
    for (const res of all) expect((await pages(pdfOf(res))).length).toBe(1);
  });

  // A rider whose report runs over pages: rider 101's very HTML with a table's rows repeated, printed
  // by the same printer (the fixture is shared by the run's files, so no rows are added to it).
  async function printLonger(table: 'held' | 'checks', times: number): Promise<{ pdf: Buffer; text: string[] }> {
    const { text: html } = await request(t.app).get('/admin/riders/101/report').expect(200);
    const longer = html.replace(
      new RegExp(`(<section class="${table}">[\\s\\S]*?<tbody>\\n)([\\s\\S]*?)(</tbody>)`),
      (_m, a, rows, b) => a + rows.repeat(times) + b,
    );
    expect(longer.length).toBeGreaterThan(html.length);
    const pdf = await printerFor(CHROMIUM).print(longer, '/admin/riders/101/report', 'A4');
    return { pdf, text: await pages(pdf) };
  }

  it("heads every page of a long report with the rider's name and ID", async () => {
    const { text } = await printLonger('checks', 120);
    expect(text.length).toBeGreaterThanOrEqual(3);
    text.forEach((page, i) => expect([i, page.startsWith('Ahmed Khan · Rider ID 101 ')]).toEqual([i, true]));
    // The acknowledgement stays with the items held, on the first page, before the history.
    expect(text[0]).toContain('Acknowledgement');
    expect(text[0].indexOf('Equipment held now')).toBeLessThan(text[0].indexOf('Acknowledgement'));
  });

  it('keeps the items held and the signature lines on one page when both fit on one', async () => {
    // 10 to 18 rows held: the block follows the open points when it fits there, else starts the next page whole.
    for (const times of [5, 7, 9]) {
      const { text } = await printLonger('held', times);
      const held = text.findIndex((page) => page.includes('Equipment held now'));
      const signed = text.findIndex((page) => page.includes('Acknowledgement'));
      expect([times, signed]).toEqual([times, held]);
      expect(text[signed]).toMatch(/Equipment held now Product .* exchange 07 Acknowledgement /);
    }
  });

  it('keeps the last items of a list longer than a page with the signature lines, never those alone', async () => {
    // A demo rider holding 8 or more items: its report as served (the last 3 rows a table of their own,
    // with the signatures), its first table's rows repeated to run over pages.
    const demo = testApp('demo', { CHROMIUM_PATH: CHROMIUM });
    try {
      const { rows } = await demo.pool.query<{ id: string; n: number }>(
        'SELECT id::text, active_items AS n FROM riders WHERE active_items >= 8 ORDER BY id LIMIT 1',
      );
      const { id, n } = rows[0];
      const { text: html } = await request(demo.app).get(`/admin/riders/${id}/report`).expect(200);
      const rowsOf = (part: string) => (part.match(/<tr><td data-label="Product"/g) ?? []).length;
      const [beforeSigned, signedPart] = html.split('<div class="with-signatures">');
      expect([rowsOf(beforeSigned), rowsOf(signedPart.split('<section class="signatures">')[0])]).toEqual([n - 3, 3]);
      // Every length from 4 to 24 times, printed side by side (the printer keeps a few pages at once).
      const lengths = Array.from({ length: 21 }, (_, i) => i + 4);
      const printed = await Promise.all(
        lengths.map(async (times) => {
          const longer = beforeSigned.replace(
            /(<section class="held">[\s\S]*?<tbody>\n)([\s\S]*?)(<\/tbody>)/,
            (_m, a, body, b) => a + body.repeat(times) + b,
          );
          const html = longer + '<div class="with-signatures">' + signedPart;
          return pages(await printerFor(CHROMIUM).print(html, `/admin/riders/${id}/report`, 'A4'));
        }),
      );
      for (const [i, text] of printed.entries()) {
        const times = lengths[i];
        const signed = text.findIndex((page) => page.includes('Acknowledgement'));
        expect([times, text.length > 1, signed > 0]).toEqual([times, true, true]);
        // On the signatures' page, held rows come before them, after the running head (the name and
        // ID): an item's day, whatever the length.
        const body = text[signed].slice(0, text[signed].indexOf('Acknowledgement'));
        expect([times, / \d{4}-\d{2}-\d{2} /.test(body.slice(body.indexOf(`Rider ID ${id}`)))]).toEqual([times, true]);
      }
    } finally {
      await demo.close();
    }
    // 21 long PDFs: about 40 s on an idle machine of two cores, and up to several times that beside the rest of the suite.
  }, 300000);

  it('keeps the last patrol checks with the totals: the totals never stand alone on the last page', async () => {
    // A demo rider with 3 or more checks: its report as served (the last 2 checks a table of their own, with
    // the totals), its first table's rows repeated so that the report ends at every point of a page.
    const demo = testApp('demo', { CHROMIUM_PATH: CHROMIUM });
    try {
      const { rows } = await demo.pool.query<{ id: string; n: number }>(
        'SELECT rider_id::text AS id, count(*)::int AS n FROM patrol_checks GROUP BY rider_id HAVING count(*) >= 4 ORDER BY rider_id LIMIT 1',
      );
      const { id, n } = rows[0];
      const { text: html } = await request(demo.app).get(`/admin/riders/${id}/report`).expect(200);
      const rowsOf = (part: string) => (part.match(/<tr><td data-label="Check"/g) ?? []).length;
      const [before, kept] = html.split('<div class="with-totals">');
      expect([rowsOf(before), rowsOf(kept)]).toEqual([n - 2, 2]);
      const lengths = Array.from({ length: 14 }, (_, i) => Math.ceil((20 + 3 * i) / (n - 2)));
      const printed = await Promise.all(
        lengths.map(async (times) => {
          const longer = before.replace(
            /(<section class="checks">[\s\S]*?<tbody>\n)([\s\S]*?)(<\/tbody>)/,
            (_m, a, body, b) => a + body.repeat(times) + b,
          );
          return pages(await printerFor(CHROMIUM).print(longer + '<div class="with-totals">' + kept, `/admin/riders/${id}/report`, 'A4'));
        }),
      );
      for (const [i, text] of printed.entries()) {
        const last = text[text.length - 1];
        expect([lengths[i], last.includes('Totals:')]).toEqual([lengths[i], true]);
        // Before the totals on their page: check rows (a check's day), after the running head.
        const body = last.slice(last.indexOf(`Rider ID ${id}`), last.indexOf('Totals:'));
        expect([lengths[i], / \d{4}-\d{2}-\d{2} /.test(body)]).toEqual([lengths[i], true]);
      }
    } finally {
      await demo.close();
    }
  }, 300000);

  it('is a tagged PDF (structure for screen readers), as pdfinfo reads it', async () => {
    const res = await request(t.app).get('/admin/riders/101/report.pdf?paper=A4').buffer(true).parse(binary).expect(200);
    const info = promisify(execFile)('/usr/bin/pdfinfo', ['-'], { encoding: 'utf8' });
    info.child.stdin!.end(pdfOf(res));
    expect((await info).stdout).toMatch(/^Tagged:\s+yes$/m);
  });

  it('refuses a PDF without a valid paper size', async () => {
    await request(t.app).get('/admin/riders/101/report.pdf?paper=A3').expect(400);
  });
});
