// The admin group's pages (bench/admin-pages.ts) timed on services that are already running, side by
// side: before and after a change, at two fleet sizes, without loading the bench's own datasets.
//
//   node -r ./scripts/ts-register.js scripts/admin-side-by-side.ts [--pages REGEX] [--requests N] \
//     [--extra 'PATH?QUERY' ...] BASE_URL@DATABASE_URL ...
//
// Each side is a service and the database it serves. Every side signs in as ADMIN_USER/ADMIN_PASSWORD;
// the pages' values are sampled at the first side's database (ids are drawn from each side's own).
// Per page: one unmeasured request at each side, then N rounds of one request at each side in turn (so
// all sides see the same load of the machine); the median per side, and each side's median over the
// next side's. --extra adds pages of one fixed path and query (a deep page of a filter, say).
import { parseArgs } from 'node:util';
import pg from 'pg';
import { adminLists } from '../src/admin/registry';
import { DEFAULT_ATTENTION } from '../src/config';
import { AdminBrowser, connection } from '../bench/admin-client';
import { adminPages, resolvePage, type AdminPage, type DatasetValues } from '../bench/admin-pages';
import { datasetValues } from '../bench/admin-values';
import { median } from '../bench/stats';

async function valuesOf(url: string, samples: Parameters<typeof datasetValues>[1]): Promise<DatasetValues> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await datasetValues(client, samples);
  } finally {
    await client.end();
  }
}

async function main() {
  const { values: options, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      pages: { type: 'string', default: '.' },
      requests: { type: 'string', default: '3' },
      extra: { type: 'string', multiple: true, default: [] },
    },
  });
  const sides = positionals.map((side) => {
    const at = side.indexOf('@');
    if (at < 0) throw new Error(`a side is BASE_URL@DATABASE_URL, not ${side}`);
    return { base: side.slice(0, at), url: side.slice(at + 1) };
  });
  if (!sides.length) throw new Error('name at least one side: BASE_URL@DATABASE_URL');
  const user = process.env.ADMIN_USER ?? 'sup';
  const password = process.env.ADMIN_PASSWORD ?? 'supervisor-pass-1';
  const requests = Number(options.requests);
  const pattern = new RegExp(options.pages);

  const derived = adminPages(adminLists(DEFAULT_ATTENTION), { deepPage: 400, bothDirections: true });
  const extra: AdminPage[] = options.extra.map((path) => ({ name: path, path, query: {}, statuses: [200] }));
  const pages = [...derived.pages.filter((page) => pattern.test(page.name)), ...extra];
  const sampled = await valuesOf(sides[0].url, derived.samples);
  const open = await Promise.all(
    sides.map(async (side) => ({
      ...side,
      values: { samples: sampled.samples, ranges: (await valuesOf(side.url, derived.samples)).ranges },
      browser: await AdminBrowser.signIn(side.base, user, password),
      agent: connection(),
    })),
  );
  console.log(`values: ${JSON.stringify(sampled.samples)}`);
  console.log(`median ms of ${requests}: ${sides.map((side) => side.url.replace(/^.*\//, '')).join(' | ')}`);
  for (const page of pages) {
    for (const side of open) await side.browser.get(resolvePage(page, side.values), side.agent);
    const times = open.map(() => [] as number[]);
    const statuses = new Set<number>();
    for (let i = 0; i < requests; i++) {
      for (const [n, side] of open.entries()) {
        const timed = await side.browser.get(resolvePage(page, side.values), side.agent);
        times[n].push(timed.ms);
        statuses.add(timed.status);
      }
    }
    const medians = times.map((t) => median(t));
    const ratios = medians.slice(0, -1).map((m, n) => `${(m / medians[n + 1]).toFixed(2)}x`);
    console.log(`${medians.map((m) => m.toFixed(0).padStart(6)).join(' ')}  ${ratios.join(' ')}  ${[...statuses].join(',')}  ${page.name}`);
  }
  for (const side of open) side.agent.destroy();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
