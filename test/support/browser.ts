// Real headless Chromium for the browser tests and the screenshots: Debian's chromium package,
// driven by playwright-core (which downloads no browser of its own).
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not at ${CHROMIUM_PATH}. Install Debian's package (apt-get install chromium), ` +
        'or point CHROMIUM_PATH at a Chromium binary.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
}
