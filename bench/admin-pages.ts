// The admin pages the bench opens, derived from the lists' own definitions (src/admin/lists.ts): each
// list's first page, a deep page, its first page with each filter, and sorted by each sortable column;
// then the pages that are not lists. A filter or sort added to a list is benchmarked without editing
// the bench. Pure: the values a page needs from a dataset are named here and looked up per dataset.
import { type ParamDef } from '../src/bench-entry';
import { percentile } from './stats';
import { WEEK } from './scenarios';

/** One calendar month in the middle of the demo's history, the other date range the lists are filtered by. */
export const MONTH = { from: '2026-06-01', to: '2026-06-30' };

/** Ids drawn per request, uniformly from the dataset's range: a random existing rider or check. */
export type Draw = 'rider' | 'check';

/**
 * A query value: fixed text; the value of a sample, looked up in each dataset (`index` for samples
 * of several columns, e.g. a product and its variation); or an id drawn per request.
 */
export type PageValue = string | { sample: string; index?: number } | { draw: Draw };

export interface AdminPage {
  /** Unique and stable: the path, then what is asked of it ("/admin/checks sort=id desc"). */
  name: string;
  /** The path; `:rider` or `:check` in it is an id drawn per request. */
  path: string;
  query: Record<string, PageValue>;
  /** The answers a working page gives (200; the batch report of a whole 3PL may be 400: too many riders to print). */
  statuses: number[];
  /** For list pages: which list, and which kind of page. */
  list?: { path: string; variant: 'first' | 'deep' | 'filter' | 'sort' };
}

/**
 * A value the pages need from each dataset: the most frequent value (or tuple of values) of these
 * columns among the list's rows (`list`, a list's path), or the result of a query of the bench's own
 * (`special`: see admin.ts).
 */
export type SampleNeed = { key: string; list: string; columns: string[] } | { key: string; special: 'asOf' | 'surname' };

/** What the derivation reads of a list (ListResource in src/admin/list-page.ts). */
export interface ListShape {
  path: string;
  printable?: boolean;
  filters: Readonly<Record<string, ParamDef>>;
  sorts: Readonly<Record<string, unknown>>;
  defaultSort: { sort: string; dir: 'asc' | 'desc' };
  companyFields?: readonly string[];
  people?: Readonly<Record<string, 'rider' | 'patroller'>>;
  itemPickers?: ReadonlyArray<{ name: string; replaces: readonly [string, string] }>;
}

export interface PageOptions {
  /** The page number of the deep page (default 400). */
  deepPage: number;
  /** Sort each sortable column both ways, or only ascending. */
  bothDirections: boolean;
}

export interface Derived {
  pages: AdminPage[];
  samples: SampleNeed[];
  /** Filters no value could be found for (no column and no known kind), with why: reported, not measured. */
  skipped: Array<{ list: string; filter: string; reason: string }>;
}

const ADMIN = '/admin';

/** A query value as the page's name shows it. */
export function describeValue(value: PageValue): string {
  if (typeof value === 'string') return value;
  if ('draw' in value) return `<random ${value.draw}>`;
  return `<${value.sample.replace(/^.* /, '')}${value.index === undefined ? '' : `#${value.index}`}>`;
}

function pageName(path: string, query: Record<string, PageValue>, extra = ''): string {
  const q = Object.entries(query)
    .map(([k, v]) => `${k}=${describeValue(v)}`)
    .join('&');
  return `${path}${q ? ` ${q}` : ''}${extra}`;
}

function listPages(list: ListShape, options: PageOptions): Derived {
  const path = `${ADMIN}${list.path}`;
  const pages: AdminPage[] = [];
  const samples: SampleNeed[] = [];
  const skipped: Derived['skipped'] = [];
  const add = (variant: NonNullable<AdminPage['list']>['variant'], query: Record<string, PageValue>) =>
    pages.push({ name: pageName(path, query), path, query, statuses: [200], list: { path: list.path, variant } });
  const sample = (name: string, columns: string[]) => {
    const key = `${list.path} ${name}`;
    if (!samples.some((s) => s.key === key)) samples.push({ key, list: list.path, columns });
    return key;
  };

  add('first', {});
  add('deep', { page: String(options.deepPage) });

  const done = new Set<string>();
  const pickers = list.itemPickers ?? [];
  for (const [name, def] of Object.entries(list.filters)) {
    if (done.has(name) || def.aliasOf) continue;
    const picker = pickers.find((p) => p.replaces.includes(name));
    if (picker) {
      picker.replaces.forEach((n) => done.add(n));
      const columns = picker.replaces.map((n) => list.filters[n]?.column);
      if (columns.some((c) => !c)) {
        skipped.push({ list: list.path, filter: picker.name, reason: 'an item picker whose filters have no column' });
        continue;
      }
      const key = sample(picker.name, columns as string[]);
      add('filter', { [picker.replaces[0]]: { sample: key, index: 0 }, [picker.replaces[1]]: { sample: key, index: 1 } });
      continue;
    }
    if (list.people?.[name] === 'rider') {
      add('filter', { [name]: { draw: 'rider' } });
      continue;
    }
    if (def.op === 'toDay') continue; // with its lower bound, below
    if (def.op === 'fromDay') {
      const to = Object.entries(list.filters).find(([, d]) => d.op === 'toDay' && d.from === name)?.[0];
      if (to) done.add(to);
      for (const range of [WEEK, MONTH]) add('filter', { [name]: range.from, ...(to ? { [to]: range.to } : {}) });
      continue;
    }
    if (def.type === 'boolean') {
      for (const value of ['1', '0']) add('filter', { [name]: value });
      continue;
    }
    if (def.type === 'enum') {
      for (const value of def.values ?? []) add('filter', { [name]: value });
      continue;
    }
    if (def.column) {
      add('filter', { [name]: { sample: sample(name, [def.column]) } });
      continue;
    }
    if (def.type === 'date') {
      // A day the list is judged at (as_of): the bench's past day.
      add('filter', { [name]: { sample: 'asOf' } });
      continue;
    }
    skipped.push({ list: list.path, filter: name, reason: `a ${def.type} filter without a column: no value to pick from the dataset` });
  }

  for (const sort of Object.keys(list.sorts)) {
    for (const dir of options.bothDirections ? (['asc', 'desc'] as const) : (['asc'] as const)) {
      // The default order is the first page already.
      if (sort === list.defaultSort.sort && dir === list.defaultSort.dir) continue;
      add('sort', { sort, dir });
    }
  }
  return { pages, samples, skipped };
}

/** Every page the admin group opens, and the samples they need. */
export function adminPages(lists: readonly ListShape[], options: PageOptions): Derived {
  const derived = lists.map((list) => listPages(list, options));
  const pages = derived.flatMap((d) => d.pages);
  const samples = derived.flatMap((d) => d.samples);
  const skipped = derived.flatMap((d) => d.skipped);
  const one = (path: string, query: Record<string, PageValue> = {}, statuses = [200]): AdminPage => ({
    name: pageName(path, query),
    path,
    query,
    statuses,
  });
  samples.push({ key: 'asOf', special: 'asOf' }, { key: 'surname', special: 'surname' });
  const asOf = { sample: 'asOf' };
  const others: AdminPage[] = [
    one(ADMIN),
    one(ADMIN, { as_of: asOf }),
    one(`${ADMIN}/attention`),
    one(`${ADMIN}/attention`, { as_of: asOf }),
    one(`${ADMIN}/checks/:check`),
    one(`${ADMIN}/riders/:rider`),
    one(`${ADMIN}/riders/:rider/report`),
  ];
  // The batch report takes the printable list's filters: one 3PL (more riders than a batch prints
  // at any real size, answered 400 once counted), and one rider.
  const printable = lists.find((l) => l.printable);
  const company = printable?.companyFields?.[0];
  if (printable && company) {
    const key = `${printable.path} ${company}`;
    if (!samples.some((s) => s.key === key)) samples.push({ key, list: printable.path, columns: [printable.filters[company].column!] });
    others.push(one(`${ADMIN}/reports`, { [company]: { sample: key } }, [200, 400]));
    // Needs attention for one 3PL: its counts, first rows and weeks.
    others.push(one(`${ADMIN}/attention`, { '3pl': { sample: key } }));
  }
  if (printable?.filters.rider_id) others.push(one(`${ADMIN}/reports`, { rider_id: { draw: 'rider' } }));
  others.push(one(`${ADMIN}/search`, { q: { sample: 'surname' } }), one(`${ADMIN}/lookup/riders`, { q: { sample: 'surname' } }));
  return { pages: [...others, ...pages], samples, skipped };
}

/** The values of one dataset: its samples and the ranges ids are drawn from. */
export interface DatasetValues {
  samples: Record<string, string[]>;
  ranges: Record<Draw, { min: number; max: number }>;
}

/** One request's path and query for `page` at a dataset, with fresh draws (`random` in [0, 1)). */
export function resolvePage(page: AdminPage, values: DatasetValues, random: () => number = Math.random): string {
  const draw = (what: Draw) => {
    const { min, max } = values.ranges[what];
    return String(min + Math.floor(random() * (max - min + 1)));
  };
  const path = page.path.replace(/:(rider|check)\b/g, (_m, what: Draw) => draw(what));
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(page.query)) {
    if (typeof value === 'string') params.set(name, value);
    else if ('draw' in value) params.set(name, draw(value.draw));
    else {
      const sampled = values.samples[value.sample]?.[value.index ?? 0];
      if (sampled === undefined) throw new Error(`no value of "${value.sample}" in this dataset`);
      params.set(name, sampled);
    }
  }
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

export interface LatencyStats {
  n: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
}

/** Median (the middle value, or the mean of the two middle ones), p95 (nearest rank) and max. */
export function latencyStats(ms: readonly number[]): LatencyStats {
  const sorted = [...ms].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { n: sorted.length, medianMs: median, p95Ms: percentile(sorted, 95), maxMs: sorted.length ? sorted[sorted.length - 1] : NaN };
}

export const ADMIN_TARGETS = {
  /** Median, one connection, signed in, default page size, at the bench's dataset (100,000 riders by default). */
  maxMedianMs: 300,
  /** The same page at the bench's dataset and at the comparison's (10,000 riders by default), either way. */
  maxSizeRatio: 1.5,
  /** The API's p99 with 4 slow admin pages running, over its p99 without. */
  maxIsolationP99Ratio: 1.5,
};

/** Within the ratio either way: a/b and b/a both at most `max`. */
export function withinRatio(a: number, b: number, max: number): boolean {
  return Number.isFinite(a) && Number.isFinite(b) && a > 0 && b > 0 && Math.max(a / b, b / a) <= max;
}

export interface PageVerdictInput {
  medianMs: number;
  compareMedianMs: number;
  /** Answers that were not among the page's statuses (errors and timeouts included), both datasets. */
  unexpected: number;
}

/** The page target: median <= 300 ms, within 1.5x of the comparison size, only expected answers. */
export function pagePasses({ medianMs, compareMedianMs, unexpected }: PageVerdictInput): boolean {
  return medianMs <= ADMIN_TARGETS.maxMedianMs && withinRatio(medianMs, compareMedianMs, ADMIN_TARGETS.maxSizeRatio) && unexpected === 0;
}
