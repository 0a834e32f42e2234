// One admin page measured at both sizes (bench/admin.ts): sequential requests on one connection at each,
// then concurrent clients at the bench's size, summed up per page; the deep page asked of both.
import { performance } from 'node:perf_hooks';
import { connection, type AdminBrowser, type Timed } from './admin-client';
import { latencyStats, resolvePage, type AdminPage, type DatasetValues, type LatencyStats } from './admin-pages';
import { median } from './stats';

/** One request's bound: the service's statement timeout is 30 s by default; past this it counts as no answer. */
export const REQUEST_TIMEOUT_MS = 60000;

export interface PageMeasure {
  /** Answers by status ("0": none, e.g. a timeout), the warm-up request included. */
  statuses: Record<string, number>;
  /** Answers whose status is not one of the page's (no answer included). */
  unexpected: number;
  /** Sequential requests on one connection, expected answers only. */
  one: LatencyStats;
  /** `connections` concurrent clients, each with its own connection (the bench's dataset only). */
  concurrent?: LatencyStats;
  /** Median size of the answer on the wire (compressed, as a browser asks). */
  bytes: number;
  /** The first error messages and unexpected answers, for the report. */
  notes: string[];
}

export interface AdminPageResult {
  name: string;
  page: AdminPage;
  main: PageMeasure;
  compare?: PageMeasure;
  /** main median over the comparison's median, one connection. */
  ratio: number;
  pass: boolean;
}

export const ADMIN_CONNECTIONS = 4;

export const count = (statuses: Record<string, number>, timed: Timed[]) => {
  for (const t of timed) statuses[String(t.status)] = (statuses[String(t.status)] ?? 0) + 1;
};

/** Up to `n` requests of `page`, one after the other on one connection; no new one after `seconds`. */
async function sequential(browser: AdminBrowser, page: AdminPage, values: DatasetValues, n: number, seconds: number): Promise<Timed[]> {
  const agent = connection();
  const started = performance.now();
  const out: Timed[] = [];
  try {
    for (let i = 0; i < n && (i === 0 || performance.now() - started < seconds * 1000); i++)
      out.push(await browser.get(resolvePage(page, values), agent, REQUEST_TIMEOUT_MS));
  } finally {
    agent.destroy();
  }
  return out;
}

interface Side {
  browser: AdminBrowser;
  values: DatasetValues;
}

function summarise(page: AdminPage, warm: Timed[], one: Timed[], concurrent?: Timed[]): PageMeasure {
  const expected = (t: Timed) => page.statuses.includes(t.status);
  const all = [...warm, ...one, ...(concurrent ?? [])];
  const statuses: Record<string, number> = {};
  count(statuses, all);
  return {
    statuses,
    unexpected: all.filter((t) => !expected(t)).length,
    one: latencyStats(one.filter(expected).map((t) => t.ms)),
    concurrent: concurrent ? latencyStats(concurrent.filter(expected).map((t) => t.ms)) : undefined,
    bytes: median(one.map((t) => t.bytes)),
    notes: all
      .filter((t) => !expected(t))
      .slice(0, 3)
      .map((t) => t.error ?? `answered ${t.status}`),
  };
}

/**
 * One page at both sizes: an unmeasured request at each (the page's code, plans and the pages of the
 * tables it reads), then `requests` sequential requests at each, alternating between the two so
 * that both see the same load of the (shared) machine, then 4 concurrent clients at the bench's size
 * sharing `requests` (rounded up to a multiple of 4, so that all 4 stay busy throughout).
 * No new request after `seconds` in each part (each makes at least one).
 */
export async function measurePage(
  page: AdminPage,
  main: Side,
  compare: Side,
  settings: { requests: number; seconds: number },
): Promise<{ main: PageMeasure; compare: PageMeasure }> {
  const warmMain = await sequential(main.browser, page, main.values, 1, settings.seconds);
  const warmCompare = await sequential(compare.browser, page, compare.values, 1, settings.seconds);
  const agents = [connection(), connection()];
  const one: [Timed[], Timed[]] = [[], []];
  const started = performance.now();
  try {
    for (let i = 0; i < settings.requests && (i === 0 || performance.now() - started < settings.seconds * 1000); i++) {
      one[0].push(await main.browser.get(resolvePage(page, main.values), agents[0], REQUEST_TIMEOUT_MS));
      one[1].push(await compare.browser.get(resolvePage(page, compare.values), agents[1], REQUEST_TIMEOUT_MS));
    }
  } finally {
    agents.forEach((a) => a.destroy());
  }
  const concurrent = (
    await Promise.all(
      Array.from({ length: ADMIN_CONNECTIONS }, () =>
        sequential(main.browser, page, main.values, Math.ceil(settings.requests / ADMIN_CONNECTIONS), settings.seconds),
      ),
    )
  ).flat();
  return { main: summarise(page, warmMain, one[0], concurrent), compare: summarise(page, warmCompare, one[1]) };
}

/**
 * The deep page to measure at both sizes: `page` itself, or, when its page number is past the end of
 * the list at the smaller size (where a list of riders' rules is shorter), the last page there, found
 * by halving: the same page asked of both, not a past-the-end page that reads nothing at one size.
 */
export async function deepPageAtBoth(page: AdminPage, compare: Side): Promise<AdminPage> {
  const asked = Number(page.query.page);
  const pastEnd = async (n: number) => {
    const { status, body } = await compare.browser.text(
      resolvePage({ ...page, query: { ...page.query, page: String(n) } }, compare.values),
    );
    if (status !== 200) throw new Error(`${page.name}: page ${n} answered ${status}`);
    return body.includes('past the end');
  };
  if (!(await pastEnd(asked))) return page;
  let [low, high] = [1, asked]; // page `low` exists, page `high` is past the end
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (await pastEnd(mid)) high = mid;
    else low = mid;
  }
  const query = { ...page.query, page: String(low) };
  return { ...page, query, name: `${page.name.replace(/\bpage=\d+/, `page=${low}`)} (${asked} is past the end at the smaller size)` };
}

export const ms = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : '-');
