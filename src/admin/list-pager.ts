import { invalidQuery } from '../http/errors';
import { isKeyValue, type SortKey } from '../queries/keyset';
import { href, without, type Query } from '../html/urls';
import { POSITION_PARAM_NAMES } from './list-params';
import type { Row } from './stream-csv';

// Where a list page is and the links around it. A page is found by a number (read from the start, or
// from the end), or by the sort key of the row just before it (`after`) or just after it (`before`),
// which Next and Previous carry with the number they lead to, so deep pages cost no more than the first.

export type Values = Record<string, unknown>;

/** Totals up to this are exact; past it a page says "more than" (a count stops there). */
export const DEFAULT_COUNT_CAP = 10000;
/** A list CSV's first rows, read as its first page is, so the download starts at once (see list-page.ts, csv()). */
export const CSV_HEAD_ROWS = 1000;

export interface Position {
  /** Read from the end backwards: the last page, or the rows before a cursor. */
  backwards: boolean;
  cursor?: string[];
  offset: number;
  /** The page's number from the start, or from the end (1: the last), when known. */
  page?: number;
  fromEnd?: number;
  /** The day gone to (`day`), when the page starts there. */
  day?: string;
}

/** A row's sort key, as the link parameter: its keys' values and its id, as base64url JSON. */
export const cursorOf = (values: readonly string[]) => Buffer.from(JSON.stringify(values)).toString('base64url');

const BAD_CURSOR = 'is not a page link of this list in this order; go back to the first page';

function decodeCursor(name: string, text: string, keys: readonly SortKey[]): string[] {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(text) ? JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) : undefined;
  } catch {
    parsed = undefined;
  }
  const types = [...keys.map((key) => key.type), 'bigint' as const];
  if (!Array.isArray(parsed) || parsed.length !== types.length || !parsed.every((value, i) => isKeyValue(types[i], value)))
    throw invalidQuery({ [name]: [BAD_CURSOR] });
  return parsed as string[];
}

/** The largest row id: a day's cursor in an order from the newest sits after every row of the day after. */
const LAST_ID = '9223372036854775807';

/**
 * Where the request's page is, from its validated values; a 400 for a cursor of no row or of another
 * sort. `day` (a list ordered by a date first) is a cursor at that day's start in the session's time
 * zone: oldest first, the rows from that day on; newest first, the rows of that day and before.
 */
export function positionOf(values: Values, keys: readonly SortKey[], perPage: number, dir: 'asc' | 'desc'): Position {
  const page = values.page as number | undefined;
  const fromEnd = values.from_end as number | undefined;
  const after = values.after as string | undefined;
  const before = values.before as string | undefined;
  const day = values.day as string | undefined;
  if (after !== undefined && before !== undefined) throw invalidQuery({ before: ['may not be given with the Next link’s position'] });
  if (page !== undefined && fromEnd !== undefined) throw invalidQuery({ from_end: ['may not be given with a Page'] });
  if (day !== undefined) {
    if (keys[0]?.type !== 'timestamptz' || keys.length !== 1)
      throw invalidQuery({ day: ['is for a list ordered by a date: sort it by its date first'] });
    if ([page, fromEnd, after, before].some((v) => v !== undefined))
      throw invalidQuery({ day: ['may not be given with a page or a Next or Previous link'] });
    const next = new Date(`${day}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    const cursor = dir === 'asc' ? [`${day} 00:00:00`, '0'] : [`${next.toISOString().slice(0, 10)} 00:00:00`, LAST_ID];
    return { backwards: false, cursor, offset: 0, day };
  }
  if (after !== undefined) return { backwards: false, cursor: decodeCursor('after', after, keys), offset: 0, page, fromEnd };
  if (before !== undefined) return { backwards: true, cursor: decodeCursor('before', before, keys), offset: 0, page, fromEnd };
  if (fromEnd !== undefined) return { backwards: true, offset: (fromEnd - 1) * perPage, fromEnd };
  return { backwards: false, offset: ((page ?? 1) - 1) * perPage, page: page ?? 1 };
}

/** The rows of a page read one past the page in the direction read: the page, and what lies either side. */
export function pageOf(found: Row[], position: Position, perPage: number) {
  const more = found.length > perPage;
  // Backwards reads come back in the list's order too; the extra row is then the first.
  const rows = more ? (position.backwards ? found.slice(1) : found.slice(0, perPage)) : found;
  const before = position.backwards ? more : position.offset > 0 || position.cursor !== undefined;
  const after = position.backwards ? position.offset > 0 || position.cursor !== undefined : more;
  return { rows, before, after };
}

/** The sort key of a row read with pageRows(), as a cursor. */
export const keyOfRow = (row: Row, keyCount: number) =>
  cursorOf([...Array.from({ length: keyCount }, (_, i) => String(row[`page_key_${i}`])), String(row.page_key_id)]);

export interface Total {
  /** Exact, or the cap when `capped`. */
  count: number;
  capped: boolean;
}

type PageLink = { n: number; text: string; label: string; href: string; current: boolean } | null;

/** Page links around the current one: first, last, and two either side. */
function pageWindow(page: number, pages: number): Array<number | null> {
  const shown = new Set([1, pages, page - 2, page - 1, page, page + 1, page + 2].filter((n) => n >= 1 && n <= pages));
  const sorted = [...shown].sort((a, b) => a - b);
  const out: Array<number | null> = [];
  sorted.forEach((n, i) => {
    if (i > 0 && n - sorted[i - 1] > 1) out.push(null); // a gap
    out.push(n);
  });
  return out;
}

/**
 * The pager of one page: Previous and Next by the sort keys of the page's first and last rows, page
 * numbers by offset (all of them when the total is exact; else the first, those near this page and
 * the last, read from the end), and what the summary says of the rows shown.
 */
export function pagerOf(opts: {
  path: string;
  current: Query;
  position: Position;
  total: Total;
  perPage: number;
  rows: Row[];
  keyCount: number;
  before: boolean;
  after: boolean;
}) {
  const { path, current, position, total, perPage, rows, keyCount } = opts;
  const base = without(current, ...POSITION_PARAM_NAMES);
  const at = (n: number) => href(path, n === 1 ? base : { ...base, page: String(n) });
  const fromEndAt = (k: number) => href(path, { ...base, from_end: String(k) });
  const pages = total.capped ? undefined : Math.max(1, Math.ceil(total.count / perPage));
  // A page read from the end, when the total is exact, has a number from the start too.
  const page = position.page ?? (pages !== undefined && position.fromEnd !== undefined ? pages - position.fromEnd + 1 : undefined);
  const fromEnd = position.page === undefined ? position.fromEnd : undefined;
  const lastHref = pages !== undefined ? at(pages) : fromEndAt(1);

  const label = (n: number | undefined, k: number | undefined) =>
    n !== undefined ? { page: String(n) } : k !== undefined ? { from_end: String(k) } : ({} as Query);
  const prevHref =
    opts.before && rows.length
      ? page === 2
        ? at(1)
        : href(path, { ...base, ...label(page && page - 1, fromEnd && fromEnd + 1), before: keyOfRow(rows[0], keyCount) })
      : undefined;
  const nextHref =
    opts.after && rows.length
      ? fromEnd === 2
        ? fromEndAt(1)
        : href(path, { ...base, ...label(page && page + 1, fromEnd && fromEnd - 1), after: keyOfRow(rows[rows.length - 1], keyCount) })
      : undefined;

  const number = (n: number): PageLink => ({
    n,
    text: n.toLocaleString('en-US'),
    label: `Page ${n}`,
    // Beside a page of known number, its neighbours are its Previous and Next (cursors); else by number.
    href:
      n === page
        ? ''
        : page !== undefined && n === page - 1 && prevHref
          ? prevHref
          : page !== undefined && n === page + 1 && nextHref
            ? nextHref
            : at(n),
    current: n === page,
  });
  const last = (current: boolean): PageLink => ({ n: 0, text: 'Last', label: 'Last page', href: fromEndAt(1), current });
  let pageLinks: PageLink[];
  if (pages !== undefined && page !== undefined)
    pageLinks = pageWindow(Math.min(page, pages), pages).map((n) => (n === null ? null : number(n)));
  else if (page !== undefined) {
    const near = [page - 2, page - 1, page, ...(opts.after ? [page + 1] : [])].filter((n) => n > 1);
    pageLinks = [number(1), ...(near.length && near[0] > 2 ? [null] : []), ...near.map(number), null, last(false)];
  } else {
    const here: PageLink =
      fromEnd === 1
        ? last(true)
        : {
            n: 0,
            text: fromEnd ? `${fromEnd.toLocaleString('en-US')} from the end` : 'This page',
            label: fromEnd ? `Page ${fromEnd} from the end` : 'This page',
            href: '',
            current: true,
          };
    pageLinks = [number(1), null, here, ...(fromEnd === 1 ? [] : [null, last(false)])];
  }
  pageLinks = pageLinks.map((link) => (link && link.current ? { ...link, href: href(path, current) } : link));

  const n = (x: number) => x.toLocaleString('en-US');
  const skipped = ((page ?? fromEnd ?? 1) - 1) * perPage;
  const shown =
    page !== undefined
      ? `${n(skipped + 1)}–${n(skipped + rows.length)}`
      : fromEnd === 1
        ? `the last ${n(rows.length)}`
        : fromEnd !== undefined
          ? `${n(skipped + 1)}–${n(skipped + rows.length)} counted back from the end`
          : undefined;
  return {
    page,
    pages,
    fromEnd,
    /** Which rows are shown, as the summary says it ("26–50"), when known. */
    shown,
    prevHref,
    nextHref,
    lastPageHref: lastHref,
    pageLinks,
  };
}
