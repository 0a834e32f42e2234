import type { Request, Response } from 'express';
import type { Knex } from 'knex';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { clientSignal } from '../http/client-signal';
import { sessionKey, type StreamLimit } from '../http/stream-limit';
import type { Params } from '../filters/define';
import type { Scope } from '../filters/scope';
import { queryValidator } from '../filters/validate';
import { HttpError, type FieldErrors } from '../http/errors';
import { formModel } from './form';
import { DEFAULT_PER_PAGE, LIST_PARAM_NAMES, PER_PAGE_CHOICES, listParams, type Choice } from './list-params';
import { render } from './render';
import { scopeOf } from './scope';
import { streamCsv, type Row } from './stream-csv';
import { href, stringQuery, without, type Query } from './urls';

export type Values = Record<string, unknown>;
type Dir = 'asc' | 'desc';

export interface ListColumn {
  key: string;
  label: string;
  /** The allow-list name to sort by, if this column sorts; and the direction of a first click. */
  sort?: string;
  firstDir?: Dir;
  numeric?: boolean;
  /** Kept on one line (datetimes). */
  nowrap?: boolean;
  /** The cell's text in the table and in the CSV; the row's value under `key` by default. */
  text?: (row: Row) => string;
  href?: (row: Row) => string | undefined;
  badge?: (row: Row) => 'pass' | 'fail' | 'muted' | undefined;
  /** Several entries in one cell (the CSV joins their texts). */
  items?: (row: Row) => Array<{ text: string; note?: string; muted?: boolean }>;
  /** Text that may be in any script (names): the browser finds its direction. */
  auto?: boolean;
  /** A column of the table only, or of the CSV only (ids the table shows as links, say). */
  only?: 'table' | 'csv';
}

export interface ListResource {
  path: string;
  /** Its filters also select riders for the batch report at /admin/reports. */
  printable?: boolean;
  title: string;
  intro: string;
  section: string;
  noun: [singular: string, plural: string];
  filters: Params;
  choices?: Record<string, readonly Choice[]>;
  /** Filter names that take a 3PL name, to offer the known names as suggestions. */
  companyFields?: readonly string[];
  sorts: Readonly<Record<string, { column: string; nullsLast?: boolean }>>;
  tieBreak: string;
  defaultSort: { sort: string; dir: Dir };
  filtered: (values: Values) => Knex.QueryBuilder;
  columns: (builder: Knex.QueryBuilder, values: Values) => Knex.QueryBuilder;
  table: ListColumn[];
  csvName: string;
}

export const cellText = (column: ListColumn, row: Row): string => {
  if (column.text) return column.text(row);
  if (column.items) return column.items(row).map((item) => (item.note ? `${item.text} (${item.note})` : item.text)).join('; ');
  const value = row[column.key];
  return value === null || value === undefined ? '' : String(value);
};

const fieldErrors = (error: unknown): FieldErrors | undefined =>
  error instanceof HttpError && error.status === 400 ? error.options.errors : undefined;

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

export interface ListDeps {
  pool: Reader;
  streamPool: Reader;
  streamLimit: StreamLimit;
  companies: (scope: Scope, signal: AbortSignal) => Promise<string[]>;
  /** The lists shown as tabs of one section (the equipment lists). */
  tabs: ReadonlyArray<Pick<ListResource, 'path' | 'title' | 'section'>>;
}

/** The HTML page and the CSV download of one list, both from the resource's one builder. */
export function listHandlers(resource: ListResource, { pool, streamPool, streamLimit, companies, tabs }: ListDeps) {
  const equipmentTabs = tabs.filter((tab) => tab.section === resource.section);
  const params = { ...resource.filters, ...listParams(Object.keys(resource.sorts)) };
  const validate = queryValidator(params);
  const filterNames = Object.keys(resource.filters);
  const path = `/admin${resource.path}`;

  const sortOf = (values: Values) => ({
    sort: (values.sort as string | undefined) ?? resource.defaultSort.sort,
    dir: (values.dir as Dir | undefined) ?? (values.sort ? 'asc' : resource.defaultSort.dir),
  });
  /** The builder ordered by the chosen (or default) column, then the tie-break, the same way. */
  const ordered = (builder: Knex.QueryBuilder, values: Values) => {
    const { sort, dir } = sortOf(values);
    const spec = resource.sorts[sort];
    return builder.orderBy([
      { column: spec.column, order: dir, ...(spec.nullsLast ? { nulls: 'last' as const } : {}) },
      { column: resource.tieBreak, order: dir },
    ]);
  };

  /**
   * The request's values, with the supervisor's scope; or, for a bad value, undefined once the page
   * has been answered 400: whole, with the form and each message beside its field, and no table.
   */
  async function valuesOf(req: Request, res: Response): Promise<Values | undefined> {
    try {
      return { ...(await validate(req.query as Values)), ...scopeOf(res) };
    } catch (error) {
      const errors = fieldErrors(error);
      if (!errors) throw error;
      const view = { resource, equipmentTabs, form: await form(res, stringQuery(req.query as Values), errors), list: null };
      await render(res, 'list', { title: `${resource.title}: check the filters`, section: resource.section, ...view }, 400);
      return undefined;
    }
  }

  async function form(res: Response, raw: Query, errors?: FieldErrors) {
    const names = resource.companyFields ?? [];
    return {
      ...formModel({
        action: path,
        params: resource.filters,
        raw,
        errors,
        choices: resource.choices,
        suggestions: Object.fromEntries(names.map((name) => [name, 'companies'])),
        keep: ['sort', 'dir', 'per_page'],
      }),
      companies: names.length ? await companies(scopeOf(res), clientSignal(res)) : [],
    };
  }

  async function page(req: Request, res: Response): Promise<void> {
    const values = await valuesOf(req, res);
    if (!values) return;
    const { sort, dir } = sortOf(values);
    const perPage = Number(values.per_page ?? DEFAULT_PER_PAGE);
    const pageNo = values.page as number;

    const base = resource.filtered(values);
    const signal = clientSignal(res);
    const [[counted], found] = await Promise.all([
      queryRows<{ total: string }>(pool, toNative(base.clone().count({ total: '*' })), signal),
      queryRows<Row>(pool, toNative(ordered(resource.columns(base.clone(), values), values).limit(perPage).offset((pageNo - 1) * perPage)), signal),
    ]);
    const total = Number(counted.total);
    const pages = Math.max(1, Math.ceil(total / perPage));

    // Every link starts from the filters and list settings of this page.
    const current = stringQuery(req.query as Values, [...filterNames, ...LIST_PARAM_NAMES]);
    const filtersOnly = stringQuery(req.query as Values, filterNames);
    const at = (n: number) => href(path, n === 1 ? without(current, 'page') : { ...current, page: String(n) });

    const shown = resource.table.filter((column) => column.only !== 'csv');
    const headers = shown.map((column) => {
      if (!column.sort) return { label: column.label, numeric: column.numeric };
      const active = column.sort === sort;
      const nextDir: Dir = active ? (dir === 'asc' ? 'desc' : 'asc') : (column.firstDir ?? 'asc');
      return {
        label: column.label,
        numeric: column.numeric,
        href: href(path, { ...without(current, 'page'), sort: column.sort, dir: nextDir }),
        ariaSort: active ? (dir === 'asc' ? 'ascending' : 'descending') : undefined,
      };
    });
    const rows = found.map((row) =>
      shown.map((column) => ({
        label: column.label,
        text: cellText(column, row),
        href: column.href?.(row),
        badge: column.badge?.(row),
        items: column.items?.(row),
        numeric: column.numeric,
        nowrap: column.nowrap,
        auto: column.auto,
      })),
    );

    const list = {
      total,
      page: pageNo,
      pages,
      perPage,
      first: total === 0 ? 0 : Math.min(total, (pageNo - 1) * perPage + 1),
      last: Math.min(total, pageNo * perPage),
      pastEnd: total > 0 && pageNo > pages,
      lastPageHref: at(pages),
      prevHref: pageNo > 1 ? at(Math.min(pageNo - 1, pages)) : undefined,
      nextHref: pageNo < pages ? at(pageNo + 1) : undefined,
      pageLinks: pageWindow(Math.min(pageNo, pages), pages).map((n) => (n === null ? null : { n, href: at(n), current: n === pageNo })),
      perPageLinks: PER_PAGE_CHOICES.map((n) => ({
        n,
        href: href(path, { ...without(current, 'page'), per_page: n === String(DEFAULT_PER_PAGE) ? '' : n }),
        current: Number(n) === perPage,
      })),
      csvHref: href(`${path}.csv`, without(current, 'page', 'per_page')),
      printHref: resource.printable ? href('/admin/reports', filtersOnly) : undefined,
      resetHref: path,
      filtered: Object.keys(filtersOnly).some((name) => filtersOnly[name] !== ''),
      headers,
      rows,
    };
    await render(res, 'list', { title: resource.title, section: resource.section, resource, equipmentTabs, form: await form(res, stringQuery(req.query as Values)), list });
  }

  async function csv(req: Request, res: Response): Promise<void> {
    const values = await valuesOf(req, res);
    if (!values) return;
    if (req.method === 'HEAD') {
      // The headers a GET would send, without reading the whole table for a body nobody receives.
      res.status(200).type('text/csv; charset=utf-8').set('Cache-Control', 'no-store').end();
      return;
    }
    const query = ordered(resource.columns(resource.filtered(values), values), values);
    const day = new Date().toISOString().slice(0, 10);
    const { key, what } = sessionKey(req);
    await streamLimit.run(key, what, () =>
      streamCsv(streamPool, toNative(query), res, {
        filename: `${resource.csvName}-${day}.csv`,
        columns: resource.table.filter((column) => column.only !== 'table').map((column) => ({ label: column.label, text: (row: Row) => cellText(column, row) })),
      }),
    );
  }

  return { page, csv };
}
