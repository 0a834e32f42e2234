import type { Knex } from 'knex';
import type { Request, Response } from 'express';
import { toNative, type NativeQuery } from '../db/knex';
import { queryRows } from '../db/rows';
import { clientSignal } from '../http/client-signal';
import { sessionKey } from '../http/stream-limit';
import { fieldErrors, invalidQuery, type FieldErrors } from '../http/errors';
import { applyScope, type Scope } from '../filters/scope';
import { cappedCount, orderAll, pageKeys, pageRows, sortKeys, type SortKey } from '../queries/keyset';
import { render } from '../html/render';
import { scopeOf } from '../html/scope';
import { href, stringQuery, without, type Query } from '../html/urls';
import { links } from '../html/links';
import { checkQuery, fieldErrorsOf } from '../html/validate-or-redraw';
import { csvFileName } from './csv-name';
import { canonical } from './list-canonical';
import { chips } from './list-chips';
import { listContext, sortOf, type ListContext, type ListDeps } from './list-context';
import type { ListResource, Values } from './list-definition';
import { listForm, loadChoices } from './list-form';
import { pageOf, pagerOf, positionOf, type Position } from './list-pager';
import { DEFAULT_PER_PAGE, LIST_PARAM_NAMES, PER_PAGE_CHOICES, POSITION_PARAM_NAMES } from './list-params';
import { csvColumns, headersOf, rowsOf } from './list-table';
import { streamCopyCsv, streamCsv, type Row } from './stream-csv';
import { copyable, csvCopy } from './csv-copy';

// The list engine: the HTML page and the CSV download of any list (list-definition.ts), both from the
// list's one builder. A request goes: canonical address (list-canonical.ts), values, then the page
// (its rows, its form from list-form.ts, its chips from list-chips.ts) or the CSV.

export type { ListColumn, ListDefinition, ListResource, RowAction, Values } from './list-definition';
export { defineList } from './list-definition';
export type { ListDeps } from './list-context';
export type { Chip } from './list-chips';
export { cellText, cellsOf } from './list-table';

/** The answer for a query with bad values: 400 with the page whole, the form and each message beside its field, and no table. */
async function redraw(context: ListContext, req: Request, res: Response, errors: FieldErrors): Promise<void> {
  const { resource, equipmentTabs } = context;
  const form = listForm(context, stringQuery(req.query as Values), await loadChoices(context, res), errors);
  const view = { resource, equipmentTabs, form, chips: [], list: null };
  await render(res, 'list', { title: `${resource.title}: check the filters`, section: resource.section, ...view }, 400);
}

/**
 * A canonical query's values (list-canonical.ts), judged by the list's validator, with the
 * supervisor's scope and the page's position (`position`); a 400 with every problem at once: the
 * validator's and `errors` (the names canonical() did not find).
 */
export async function pageValues(context: ListContext, checked: Values, scope: Scope, errors = fieldErrors()): Promise<Values> {
  const judged = await checkQuery(context.validate, checked);
  for (const [name, messages] of Object.entries(judged.errors ?? {})) (errors[name] ??= []).push(...messages);
  if (Object.keys(errors).length || !judged.values) throw invalidQuery(errors);
  const values: Values = { ...judged.values, ...scope };
  const { sort, dir } = sortOf(context, values);
  const perPage = Number(values.per_page ?? DEFAULT_PER_PAGE);
  return { ...values, position: positionOf(values, sortKeys(context.resource.sorts[sort], dir), perPage, dir) };
}

/**
 * The request's values, with the supervisor's scope and the page's position; or undefined once the
 * request has been answered: 303 to the address a picker or a typed name stands for, or 400 (redraw).
 */
async function valuesOf(context: ListContext, req: Request, res: Response, target: string): Promise<Values | undefined> {
  try {
    const { location, errors, checked } = await canonical(context, req, res, target);
    if (location) {
      res.redirect(303, location);
      return undefined;
    }
    return await pageValues(context, checked, scopeOf(res), errors);
  } catch (error) {
    const errors = fieldErrorsOf(error);
    if (!errors) throw error;
    await redraw(context, req, res, errors);
    return undefined;
  }
}

/**
 * How many rows from its end (start, or end for Last) a page number may lie and still be read. A list
 * read from its kept keys skips them along one index: 50,000 rows (page 2,000 of 25) in 25–30 ms at
 * 1,000,000 riders (page 40,000 of the patrol checks, a million rows: 3 to 4 s). The other lists (the
 * rules of Needs attention, riders with equipment) skip whole rows: 10,000 (page 400) in 20–180 ms there,
 * where page 2,000 of "items past their exchange day" took 0.8 s. Rows past it are reached by their day,
 * Next and Previous, Last, or the other order, at the cost of the first page.
 */
export const FAR_ROWS = 50000;
export const FAR_ROWS_UNKEYED = 10000;

/** Which of a page's statements a PageRunner is given: the page's rows, its capped count, or one of the exact total's. */
export type PageStatement = 'rows' | 'count' | 'total';

/**
 * Runs one of a page's statements and gives its rows: on the admin pool for a request (the page), or
 * under EXPLAIN as well (bench/explain-list.ts), so the bench measures what the page runs.
 */
export type PageRunner = <T extends object>(query: NativeQuery, statement: PageStatement) => Promise<T[]>;

/**
 * The page's statements on the admin pool, cancelled when the request's client leaves. A capped count
 * (rows `[{ total }]`) past the cap is kept a while (PAST_CAP_MS): the next pages, sorts and supervisors
 * of the same filters and scope say "more than" without counting again.
 */
function poolRunner(context: ListContext, res: Response): PageRunner {
  const signal = clientSignal(res);
  return <T extends object>(query: NativeQuery, statement: PageStatement) => {
    const read = () => queryRows<T>(context.deps.pool, query, signal);
    if (statement !== 'count') return read();
    const pastCap = (rows: object[]) => Number((rows[0] as { total?: string } | undefined)?.total) > context.countCap;
    return context.pastCap.get(JSON.stringify([query.text, query.values]), read, pastCap) as Promise<T[]>;
  };
}

/** What a page's rows are read from, given their ids: without the filters when the keys applied them; scoped either way. */
const keyedRows = (resource: ListResource, values: Values) =>
  resource.keys && resource.joined ? applyScope(resource.joined(), values) : resource.filtered(values);

/**
 * The page's rows by their sort keys (a range of an index, or an offset over the keys alone), their
 * columns computed for those rows only; and the total, counted up to the cap. Each statement through `runner`.
 */
export async function readPage(context: ListContext, values: Values, position: Position, perPage: number, runner: PageRunner) {
  const { resource, countCap } = context;
  const { sort, dir } = sortOf(context, values);
  const keysOf = () => (resource.keys ?? resource.filtered)(values);
  const read = { source: keysOf, sort: resource.sorts[sort], dir, tieBreak: resource.tieBreak, limit: perPage + 1 };
  // How far from its end a page number is read (FAR_ROWS).
  const far = resource.farRows ?? (resource.keys ? FAR_ROWS : FAR_ROWS_UNKEYED);
  const run =
    (statement: PageStatement) =>
    <T extends object>(query: Knex.QueryBuilder) =>
      runner<T>(toNative(query), statement);
  const counted = async () => {
    const exact = await resource.total?.(values, run('total'));
    if (exact !== undefined) return { count: exact, capped: false };
    const [{ total }] = await run('count')<{ total: string }>(cappedCount(keysOf(), countCap, resource.countOrder));
    return { count: Math.min(Number(total), countCap), capped: Number(total) > countCap };
  };
  const rows = (at: Position = position) =>
    run('rows')<Row>(
      pageRows(
        resource.columns(keyedRows(resource, values), values),
        pageKeys({ ...read, backwards: at.backwards, cursor: at.cursor, offset: at.offset }),
        resource.sorts[sort],
        dir,
        resource.tieBreak,
      ),
    );
  if (position.fromEnd !== undefined && !position.cursor) {
    // Counted back from the end: with an exact total, the page of that number from the start (Last is
    // the last numbered page, as short as it is); with a capped one, the rows counted back.
    const total = await counted();
    if (!total.capped) {
      const pages = Math.max(1, Math.ceil(total.count / perPage));
      const page = Math.max(1, pages - position.fromEnd + 1);
      const forward: Position = { backwards: false, offset: (page - 1) * perPage, page };
      return { found: await rows(forward), total, tooFar: false, position: forward };
    }
    if (position.offset > far) return { found: [] as Row[], total, tooFar: true, position };
    return { found: await rows(), total, tooFar: false, position };
  }
  if (position.cursor || position.offset <= far) {
    const [total, found] = await Promise.all([counted(), rows()]);
    return { found, total, tooFar: false, position };
  }
  // A page number past FAR_ROWS (or FAR_ROWS_UNKEYED) rows from its end is not read (it would skip them all, seconds at fleet
  // size, holding an admin connection meanwhile). An exact total it is not short of puts it past the
  // end; otherwise it is too far: the page says how to reach those rows at once.
  const total = await counted();
  return { found: [] as Row[], total, tooFar: total.capped || position.offset < total.count, position };
}

/** The pager's "Go to a day" form (with the list's settings as hidden fields), for a list ordered by a date. */
function dayFormOf(keys: readonly SortKey[], path: string, settings: Query, position: Position) {
  if (keys.length !== 1 || keys[0].type !== 'timestamptz') return undefined;
  const hidden = Object.entries(settings).filter(([, value]) => value !== '' && value !== undefined);
  return { action: path, hidden, value: position.day ?? '' };
}

/** The table, the pager and the page's links, as views/admin/list.ejs draws them. */
function listModel(context: ListContext, req: Request, values: Values, read: Awaited<ReturnType<typeof readPage>>) {
  const { resource, filterNames, path } = context;
  const { sort, dir } = sortOf(context, values);
  const perPage = Number(values.per_page ?? DEFAULT_PER_PAGE);
  const position = read.position;
  const { total } = read;
  const { rows, before, after } = pageOf(read.found, position, perPage);
  // Every link starts from the filters and list settings of this page.
  const current = stringQuery(req.query as Values, [...filterNames, ...LIST_PARAM_NAMES]);
  const filtersOnly = stringQuery(req.query as Values, filterNames);
  const listSettings = without(current, ...POSITION_PARAM_NAMES);
  const keyCount = sortKeys(resource.sorts[sort], dir).length;
  const shown = resource.table.filter((column) => column.only !== 'csv');
  return {
    total: total.count,
    capped: total.capped,
    perPage,
    ...pagerOf({ path, current, position, total, perPage, rows, keyCount, before, after }),
    pastEnd: total.count > 0 && rows.length === 0 && !read.tooFar && !position.day,
    /** A day gone to, as the caption and an empty page say it ("on or before 2026-06-01", newest first). */
    dayText: position.day ? `on or ${dir === 'desc' ? 'before' : 'after'} ${position.day}` : undefined,
    firstHref: href(path, listSettings),
    /** A page number too far from either end to be read (FAR_ROWS): the ways to its rows instead. */
    tooFar: read.tooFar
      ? { rows: position.offset, otherOrderHref: href(path, { ...listSettings, dir: dir === 'asc' ? 'desc' : 'asc' }) }
      : undefined,
    perPageLinks: PER_PAGE_CHOICES.map((n) => ({
      n,
      href: href(path, { ...listSettings, per_page: n === String(DEFAULT_PER_PAGE) ? '' : n }),
      current: Number(n) === perPage,
    })),
    csvHref: href(`${path}.csv`, without(listSettings, 'per_page')),
    printHref: resource.printable ? links.reports(filtersOnly) : undefined,
    resetHref: path,
    // "Go to a day" beside the pager, for an order by a date: a deep row reached by its day, not a page number.
    dayForm: dayFormOf(sortKeys(resource.sorts[sort], dir), path, listSettings, position),
    filtered: Object.keys(filtersOnly).some((name) => filtersOnly[name] !== ''),
    headers: headersOf(shown, path, listSettings, sort, dir),
    rows: rowsOf(shown, rows),
  };
}

async function page(context: ListContext, req: Request, res: Response): Promise<void> {
  const { resource, equipmentTabs, filterNames, path } = context;
  const values = await valuesOf(context, req, res, path);
  if (!values) return;
  const perPage = Number(values.per_page ?? DEFAULT_PER_PAGE);
  const [read, loaded] = await Promise.all([
    readPage(context, values, values.position as Position, perPage, poolRunner(context, res)),
    loadChoices(context, res),
  ]);
  const list = listModel(context, req, values, read);
  const raw: Query = stringQuery(req.query as Values);
  const current = stringQuery(req.query as Values, [...filterNames, ...LIST_PARAM_NAMES]);
  await render(res, 'list', {
    title: resource.title,
    section: resource.section,
    back: req.originalUrl,
    resource,
    equipmentTabs,
    form: listForm(context, raw, loaded),
    chips: await chips(context, res, raw, values, loaded, current),
    list,
  });
}

/**
 * The statements of a list's CSV for `values`, as the download runs them: its first rows (read as the
 * first page is: an index range in the list's order, their columns for those rows only), so the
 * download starts at once, then the rest: the whole list's statement past its first `headRows` rows
 * (OFFSET, in the same snapshot and the same total order), so that the planner reads it as it reads
 * `one` (a bound of the first rows' last key, known only when the statement runs, was guessed to keep a
 * third of the rows and read with another plan: 1.15× the COPY of `one` at 1,000,000 riders); as
 * PostgreSQL's COPY of the CSV's cells (`copy`) when every column has its SQL. `one()` is every row in
 * one statement, what the download was before it started at once (and what the bench compares it with).
 */
export function csvStatements({ resource, csvHeadRows, deps }: Pick<ListContext, 'resource' | 'csvHeadRows' | 'deps'>, values: Values) {
  const { sort, dir } = sortOf({ resource }, values);
  const order = resource.sorts[sort];
  const columns = () => resource.columns(resource.filtered(values), values);
  const keysRead = {
    source: () => (resource.keys ?? resource.filtered)(values),
    sort: order,
    dir,
    tieBreak: resource.tieBreak,
    backwards: false,
  };
  const head = () =>
    pageRows(
      resource.columns(keyedRows(resource, values), values),
      pageKeys({ ...keysRead, offset: 0, limit: csvHeadRows }),
      order,
      dir,
      resource.tieBreak,
    );
  const rest = () => orderAll(columns(), order, dir, resource.tieBreak).offset(csvHeadRows, { skipBinding: true });
  const one = () => toNative(orderAll(columns(), order, dir, resource.tieBreak));
  const split = csvHeadRows > 0 ? { head: toNative(head()), rest: toNative(rest()) } : undefined;
  const copy =
    split && deps.csvCopy && copyable(resource.table)
      ? { head: csvCopy(resource.table, split.head, true), rest: csvCopy(resource.table, split.rest, false), headRows: csvHeadRows }
      : undefined;
  return { one, split, copy };
}

/** Every matching row in the page's order, streamed as CSV, named by the list and its filters. */
async function csv(context: ListContext, req: Request, res: Response): Promise<void> {
  const { resource, fields, path, deps } = context;
  const values = await valuesOf(context, req, res, `${path}.csv`);
  if (!values) return;
  if (req.method === 'HEAD') {
    // The headers a GET would send, without reading the whole table for a body nobody receives.
    res.status(200).type('text/csv; charset=utf-8').set('Cache-Control', 'no-store').end();
    return;
  }
  const { one, split, copy } = csvStatements(context, values);
  const filename =
    typeof resource.csvName === 'string'
      ? csvFileName(resource.csvName, resource.filters, values, deps.today(), {
          companyFields: fields.companyFields,
          people: fields.people,
        })
      : resource.csvName(values);
  const { key, what } = sessionKey(req);
  const filenameCsv = `${filename}.csv`;
  const columnsCsv = csvColumns(resource.table);
  await deps.streamLimit.run(key, what, () =>
    copy // written by PostgreSQL
      ? streamCopyCsv(deps.streamPool, res, { filename: filenameCsv, ...copy })
      : split
        ? streamCsv(deps.streamPool, split.head, res, { filename: filenameCsv, columns: columnsCsv, rest: split.rest })
        : streamCsv(deps.streamPool, one(), res, { filename: filenameCsv, columns: columnsCsv }),
  );
}

/** The HTML page and the CSV download of one list. */
export function listHandlers(resource: ListResource, deps: ListDeps) {
  const context = listContext(resource, deps);
  return {
    page: (req: Request, res: Response) => page(context, req, res),
    csv: (req: Request, res: Response) => csv(context, req, res),
  };
}
