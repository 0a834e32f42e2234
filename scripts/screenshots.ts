// npm run screenshots: PNGs of the admin pages in ./screenshots (desktop and phone widths).
// The work is in test/support/browser-screenshots.ts, where the type checker sees it.
import { takeScreenshots } from '../test/support/browser-screenshots';

takeScreenshots(process.argv[2]).then(
  (files) => console.log(`Wrote ${files.length} screenshots:\n  ${files.join('\n  ')}`),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
