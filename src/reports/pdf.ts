// Prints report HTML to PDF with headless Chromium: the very HTML and CSS the browser gets, so the
// paper and the PDF never differ. One browser per process, a few pages at a time, each bounded in time.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { HttpError } from '../http/errors';
import { projectRoot } from '../paths';
import { links } from '../html/links';

/** Chromium's flags: headless, and nothing that reaches the network or updates itself. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const MAX_PAGES = 3; // Chromium pages printing at once; more requests wait their turn
const MAX_WAITING = 20; // past this, 503 rather than an ever-growing queue
const TIMEOUT_MS = 60000; // one print, waiting included
const IDLE_CLOSE_MS = 60000; // an idle browser is closed, so it costs nothing between prints

// Chromium never reaches the network: this made-up origin is answered from memory and disk only.
const ORIGIN = 'http://report.localhost';
const ASSETS = `${links.reportAssets}/`;
const assetsDir = path.join(projectRoot, 'public', 'reports');

export type Paper = 'A4' | 'Letter';

const footer = `<div style="width:100%;font:8px sans-serif;color:#000;text-align:center;padding:0 12mm;">
  Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>`;

export class PdfPrinter {
  private browser?: Promise<Browser>;
  private running = 0;
  private waiting: Array<() => void> = [];
  private idleTimer?: NodeJS.Timeout;

  constructor(readonly executablePath: string) {}

  /** `html` as served at `pagePath` (its stylesheet links resolve to public/reports), printed on `paper`. */
  async print(html: string, pagePath: string, paper: Paper): Promise<Buffer> {
    await this.acquire();
    try {
      const browser = await this.launch();
      // No script runs: the report needs none, and the Print button means nothing on paper.
      const context = await browser.newContext({ javaScriptEnabled: false });
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new HttpError(503, 'Printing the PDF took too long. Try a smaller batch.', { headers: { 'Retry-After': '5' } })),
            TIMEOUT_MS,
          );
        });
        return await Promise.race([this.printIn(context, html, pagePath, paper), timeout]);
      } finally {
        clearTimeout(timer);
        await context.close().catch(() => undefined); // closes its page too, also after a timeout
      }
    } finally {
      this.release();
    }
  }

  private async printIn(context: BrowserContext, html: string, pagePath: string, paper: Paper): Promise<Buffer> {
    await context.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      const asset = url.origin === ORIGIN && url.pathname.startsWith(ASSETS) ? path.basename(url.pathname) : undefined;
      if (url.origin === ORIGIN && url.pathname === pagePath) {
        await route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html });
      } else if (asset && /^[\w-]+\.css$/.test(asset) && fs.existsSync(path.join(assetsDir, asset))) {
        await route.fulfill({ status: 200, contentType: 'text/css', body: await fs.promises.readFile(path.join(assetsDir, asset)) });
      } else {
        await route.abort('blockedbyclient');
      }
    });
    const page = await context.newPage();
    page.setDefaultTimeout(TIMEOUT_MS);
    await page.goto(ORIGIN + pagePath, { waitUntil: 'load' });
    return page.pdf({
      format: paper,
      printBackground: true,
      // A tagged PDF: headings, tables and reading order for screen readers (Chromium builds it).
      tagged: true,
      displayHeaderFooter: true,
      headerTemplate: '<span></span>',
      footerTemplate: footer,
      margin: { top: '14mm', bottom: '16mm', left: '12mm', right: '12mm' },
    });
  }

  private launch(): Promise<Browser> {
    if (!this.browser) {
      // Loaded on first use: playwright-core is a dev dependency today (see canPrint).
      const launching = Promise.resolve()
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first print only
        .then(() => (require('playwright-core') as typeof import('playwright-core')).chromium)
        .then((chromium) =>
          // The service's own shutdown handles the signals (a drain, then the printers closed: src/server.ts);
          // Playwright's would end the process at once on Ctrl-C, skipping the drain.
          chromium.launch({
            executablePath: this.executablePath,
            args: CHROMIUM_ARGS,
            timeout: 30000,
            handleSIGINT: false,
            handleSIGTERM: false,
            handleSIGHUP: false,
          }),
        );
      this.browser = launching;
      launching.then(
        (browser) =>
          browser.on('disconnected', () => {
            if (this.browser === launching) this.browser = undefined;
          }),
        () => {
          if (this.browser === launching) this.browser = undefined;
        }, // try again at the next print
      );
    }
    return this.browser;
  }

  private async acquire(): Promise<void> {
    clearTimeout(this.idleTimer);
    if (this.running < MAX_PAGES) {
      this.running++;
      return;
    }
    if (this.waiting.length >= MAX_WAITING) {
      throw new HttpError(503, 'Too many PDFs are being printed. Try again in a moment.', { headers: { 'Retry-After': '5' } });
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve)); // the slot passes over from release()
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) return next();
    this.running--;
    if (this.running === 0) {
      this.idleTimer = setTimeout(() => void this.close(), IDLE_CLOSE_MS);
      this.idleTimer.unref();
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const browser = this.browser;
    this.browser = undefined;
    await (await browser?.catch(() => undefined))?.close();
  }
}

/** PDF needs a Chromium binary and playwright-core installed (it is not when dev dependencies are left out). */
export function canPrint(executablePath: string | undefined): executablePath is string {
  if (!executablePath || !fs.existsSync(executablePath)) return false;
  try {
    require.resolve('playwright-core');
    return true;
  } catch {
    return false;
  }
}

// One printer per Chromium binary for the whole process, however many apps are built (tests build many).
const printers = new Map<string, PdfPrinter>();

export function printerFor(executablePath: string): PdfPrinter {
  if (!printers.has(executablePath)) printers.set(executablePath, new PdfPrinter(executablePath));
  return printers.get(executablePath)!;
}

/** Closes every browser (tests, and anyone shutting down without process.exit). */
export async function closePrinters(): Promise<void> {
  await Promise.all([...printers.values()].map((printer) => printer.close()));
}
