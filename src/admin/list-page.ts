import type { Request, Response } from 'express';
import type { Knex } from 'knex';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { clientSignal } from '../http/client-signal';
import type { ValueColumn } from '../queries/choices';
import { sessionKey, type StreamLimit } from '../http/stream-limit';
import { MAX_TEXT_LENGTH, type Params } from '../filters/define';
import { queryValidator } from '../filters/validate';
import { invalidQuery, type FieldErrors } from '../http/errors';
import { formModel } from './form';
import { datePresets, dayIn } from './date-presets';
import { csvFileName } from './csv-name';
import { itemGroups, itemLabel, personLabel, type ChoiceSource, type ItemRow, type Named } from './choices';
import {
  DEFAULT_PER_PAGE,
  LIST_PARAM_NAMES,
  PER_PAGE_CHOICES,
  POSITION_PARAM_NAMES,
  choicesFor,
  listParams,
  type Choice,
} from './list-params';
import { DEFAULT_COUNT_CAP, pageOf, pagerOf, positionOf } from './list-pager';
import { cappedCount, orderAll, pageKeys, pageRows, sortKeys, type Dir, type ListSort } from '../queries/keyset';
import { render } from '../html/render';
import { scopeOf } from '../html/scope';
import { streamCsv, type Row } from './stream-csv';
import { href, stringQuery, without, type Query } from '../html/urls';
import { links } from '../html/links';
import { checkQuery, fieldErrorsOf } from '../html/validate-or-redraw';

export type Values = Record<string, unknown>;

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
  /** A form the row's cell holds ("Mark handled"): where it posts, the row's subject, whom it is about. */
  action?: (row: Row) => RowAction | undefined;
}

export interface RowAction {
  /** Unique on the page: the form's fields are named by it. */
  key: string;
  url: string;
  subject: string;
  about: string;
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
  /** Filter names that take a 3PL name: a select of the 3PLs the supervisor may see. */
  companyFields?: readonly string[];
  /** Filters over a small set of values: a select of the values present within the supervisor's 3PL. */
  valueFields?: readonly ValueColumn[];
  /** Pairs of product and variation filters picked as one item (see Picker in form.ts). */
  itemPickers?: ReadonlyArray<{ name: string; label: string; replaces: readonly [product: string, variation: string] }>;
  /** Id filters picked by name: riders are suggested as one types, patrollers listed. */
  people?: Readonly<Record<string, 'rider' | 'patroller'>>;
  /** The sorts offered, by URL name: each an order an index serves (see ListSort). */
  sorts: Readonly<Record<string, ListSort>>;
  /** The row's id (a bigint column): the last sort key, and what a page's rows are found by. */
  tieBreak: string;
  defaultSort: { sort: string; dir: Dir };
  filtered: (values: Values) => Knex.QueryBuilder;
  /** The rows the filters keep, for counting and paging: no columns, only the joins the filters and sorts use. */
  keys?: (values: Values) => Knex.QueryBuilder;
  columns: (builder: Knex.QueryBuilder, values: Values) => Knex.QueryBuilder;
  table: ListColumn[];
  /** The CSV's file name without `.csv`: the list's name, which the filters or the day are added to (csv-name.ts), or one made from the filters. */
  csvName: string | ((values: Values) => string);
  /** Totals are counted up to this (the deps' countCap when not given). */
  countCap?: number;
  /**
   * The order (SQL) a capped count reads the rows in: an index's, where the rows it skips (filtered
   * out after the index) would otherwise lead the planner to join every row before it stops.
   */
  countOrder?: string;
}

export const cellText = (column: ListColumn, row: Row): string => {
  if (column.text) return column.text(row);
  if (column.items)
    return column
      .items(row)
      .map((item) => (item.note ? `${item.text} (${item.note})` : item.text))
      .join('; ');
  const value = row[column.key];
  return value === null || value === undefined ? '' : String(value);
};

/** A row's cells as the table partial draws them (views/admin/partials/table.ejs). */
export const cellsOf = (columns: readonly ListColumn[], row: Row) =>
  columns.map((column) => ({
    label: column.label,
    text: cellText(column, row),
    href: column.href?.(row),
    badge: column.badge?.(row),
    items: column.items?.(row),
    action: column.action?.(row),
    numeric: column.numeric,
    nowrap: column.nowrap,
    auto: column.auto,
  }));

interface Loaded {
  companies: string[];
  items: ItemRow[];
  patrollers: Named[];
  values: Partial<Record<ValueColumn, string[]>>;
}

export interface Chip {
  label: string;
  text: string;
  removeHref: string;
}

export interface ListDeps {
  pool: Reader;
  streamPool: Reader;
  streamLimit: StreamLimit;
  choices: ChoiceSource;
  /** The lists shown as tabs of one section (the equipment lists). */
  tabs: ReadonlyArray<Pick<ListResource, 'path' | 'title' | 'section'>>;
  /** Totals are counted up to this; past it a page says "more than" (DEFAULT_COUNT_CAP). */
  countCap?: number;
  /** Today in the service's time zone, YYYY-MM-DD: where the date presets start. */
  today?: () => string;
}

/** The HTML page and the CSV download of one list, both from the resource's one builder. */
export function listHandlers(
  resource: ListResource,
  { pool, streamPool, streamLimit, choices, tabs, countCap: listCap = DEFAULT_COUNT_CAP, today = () => dayIn('UTC') }: ListDeps,
) {
  const countCap = resource.countCap ?? listCap;
  const equipmentTabs = tabs.filter((tab) => tab.section === resource.section);
  // Each sort is named by the header of the column it orders (the URL name when no column shows it).
  const sortChoices = Object.keys(resource.sorts).map((value) => ({
    value,
    label: resource.table.find((column) => column.sort === value)?.label ?? value,
  }));
  const ownParams = listParams(sortChoices);
  // The validator names a select's choices as the form labels them (Passed and Failed, not 1 and 0).
  const labelled = Object.fromEntries(
    Object.entries(resource.filters).map(([name, def]) => [
      name,
      resource.choices?.[name] ? { ...def, choices: resource.choices[name] } : def,
    ]),
  );
  const params = { ...labelled, ...ownParams };
  const validate = queryValidator(params, 'form');
  const filterNames = Object.keys(resource.filters);
  const path = links.list(resource.path);

  const sortOf = (values: Values) => ({
    sort: (values.sort as string | undefined) ?? resource.defaultSort.sort,
    dir: (values.dir as Dir | undefined) ?? (values.sort ? 'asc' : resource.defaultSort.dir),
  });
  const keysOf = (values: Values) => (resource.keys ?? resource.filtered)(values);

  const pickers = resource.itemPickers ?? [];
  const people = Object.entries(resource.people ?? {});

  /** What the form offers by name, for this supervisor: read once per page, shared by the form and the chips. */
  async function load(res: Response): Promise<Loaded> {
    const scope = scopeOf(res);
    const signal = clientSignal(res);
    const valueFields = resource.valueFields ?? [];
    const [companies, items, patrollers, ...values] = await Promise.all([
      resource.companyFields?.length ? choices.companies(scope, signal) : [],
      pickers.length ? choices.items(signal) : [],
      people.some(([, kind]) => kind === 'patroller') ? choices.patrollers(scope, signal) : [],
      ...valueFields.map((name) => choices.values(name, scope, signal)),
    ]);
    return { companies, items, patrollers, values: Object.fromEntries(valueFields.map((name, i) => [name, values[i]])) };
  }

  /**
   * The address a submitted form stands for, when it differs: an item picker's `product:variation`
   * becomes the two id parameters, and a name typed where an id goes becomes that person's id when
   * exactly one matches. So links, CSV and the API's parameters stay ids. Errors for what cannot be,
   * and the query for the validator to judge the rest by (the ids found; no field already in error).
   */
  async function canonical(
    req: Request,
    res: Response,
    target: string,
  ): Promise<{ location?: string; errors: FieldErrors; checked: Values }> {
    const query = req.query as Values;
    const out = stringQuery(query);
    const checked: Values = { ...query };
    const errors: FieldErrors = {};
    let changed = false;
    for (const picker of pickers) {
      if (!(picker.name in query)) continue;
      changed = true;
      const value = query[picker.name];
      delete out[picker.name];
      delete checked[picker.name];
      const match = typeof value === 'string' ? /^([0-9]{1,18}):([0-9]{0,18})$/.exec(value) : null;
      if (typeof value !== 'string') errors[picker.name] = ['must be given at most once'];
      else if (value !== '' && !match) errors[picker.name] = ['must be one of the listed items'];
      else {
        out[picker.replaces[0]] = checked[picker.replaces[0]] = match?.[1] ?? '';
        out[picker.replaces[1]] = checked[picker.replaces[1]] = match?.[2] ?? '';
      }
    }
    for (const [name, kind] of people) {
      const typed = typeof query[name] === 'string' ? (query[name] as string).trim() : '';
      // A name holds a letter; anything else is an ID for the validator to judge.
      if (!/\p{L}/u.test(typed) || typed.length > MAX_TEXT_LENGTH) continue;
      const found = await peopleNamed(kind, typed, res);
      if (found.length === 1) {
        out[name] = checked[name] = found[0].id;
        changed = true;
      } else {
        delete checked[name];
        errors[name] = [
          found.length
            ? `${found.length > 1 ? 'several' : 'no'} ${kind}s match “${typed}”: pick one from the suggestions, or give the ID`
            : `no ${kind} is named “${typed}”; give a name from the suggestions, or the ID`,
        ];
      }
    }
    const location = changed && !Object.keys(errors).length ? href(target, out) : undefined;
    return { location, errors, checked };
  }

  /** Up to two people whose name holds `typed` (enough to tell one from several), within the scope. */
  async function peopleNamed(kind: 'rider' | 'patroller', typed: string, res: Response): Promise<Named[]> {
    if (kind === 'rider') return choices.riders(typed, scopeOf(res), 2, clientSignal(res));
    const needle = typed.toLocaleLowerCase();
    return (await choices.patrollers(scopeOf(res), clientSignal(res)))
      .filter((p) => p.name.toLocaleLowerCase().includes(needle))
      .slice(0, 2);
  }

  /**
   * The request's values, with the supervisor's scope; or undefined once the request has been
   * answered: 303 to the address a picker or a typed name stands for, or, for a bad value, 400 with the
   * page whole, the form and each message beside its field, and no table.
   */
  async function valuesOf(req: Request, res: Response, target: string): Promise<Values | undefined> {
    try {
      const { location, errors, checked } = await canonical(req, res, target);
      if (location) {
        res.redirect(303, location);
        return undefined;
      }
      // Every problem of the query in one answer: the names not found, and the validator's own.
      const judged = await checkQuery(validate, checked);
      for (const [name, messages] of Object.entries(judged.errors ?? {})) (errors[name] ??= []).push(...messages);
      if (Object.keys(errors).length || !judged.values) throw invalidQuery(errors);
      const values = { ...judged.values, ...scopeOf(res) };
      const { sort, dir } = sortOf(values);
      const perPage = Number(values.per_page ?? DEFAULT_PER_PAGE);
      return { ...values, position: positionOf(values, sortKeys(resource.sorts[sort], dir), perPage) };
    } catch (error) {
      const errors = fieldErrorsOf(error);
      if (!errors) throw error;
      const view = {
        resource,
        equipmentTabs,
        form: form(stringQuery(req.query as Values), await load(res), errors),
        chips: [],
        list: null,
      };
      await render(res, 'list', { title: `${resource.title}: check the filters`, section: resource.section, ...view }, 400);
      return undefined;
    }
  }

  function form(raw: Query, loaded: Loaded, errors?: FieldErrors) {
    // A value from an old link or typed by hand stays visible, and says why nothing matches it.
    const present = (name: string, known: readonly string[], unknown: string): Choice[] => {
      const value = raw[name];
      const options = known.map((v) => ({ value: v, label: v }));
      return value && !known.includes(value) ? [{ value, label: `${value} (${unknown})` }, ...options] : options;
    };
    const companyChoices = (name: string) => present(name, loaded.companies, 'no 3PL of this name');
    const valueChoices = (name: ValueColumn) => present(name, loaded.values[name] ?? [], 'none match');
    const groups = itemGroups(loaded.items);
    // Beside each date range, links that set it and keep the other filters and the list's settings.
    const kept = without(stringQuery(raw, [...filterNames, ...LIST_PARAM_NAMES]), ...POSITION_PARAM_NAMES);
    const ranges = Object.entries(resource.filters).filter(([, def]) => def.type === 'date' && def.from);
    const presets = ranges.length ? datePresets(today()) : [];
    return {
      ...formModel({
        presets: Object.fromEntries(
          ranges.map(([to, def]) => [
            to,
            presets.map((preset) => ({ label: preset.label, href: href(path, { ...kept, [def.from!]: preset.from, [to]: preset.to }) })),
          ]),
        ),
        action: path,
        params: resource.filters,
        raw,
        errors,
        choices: {
          ...resource.choices,
          ...Object.fromEntries((resource.companyFields ?? []).map((name) => [name, companyChoices(name)])),
          ...Object.fromEntries((resource.valueFields ?? []).map((name) => [name, valueChoices(name)])),
        },
        suggestions: Object.fromEntries(people.map(([name, kind]) => [name, `${kind}-suggestions`])),
        lookups: Object.fromEntries(people.filter(([, kind]) => kind === 'rider').map(([name]) => [name, links.riderLookup])),
        labels: Object.fromEntries(people.map(([name, kind]) => [name, kind === 'rider' ? 'Rider' : 'Patroller'])),
        placeholders: Object.fromEntries(people.map(([name]) => [name, 'Name or ID'])),
        pickers: pickers.map((picker) => ({ ...picker, groups })),
        keep: ['sort', 'dir', 'per_page'],
        others: ownParams,
      }),
      datalists: [
        ...(people.some(([, kind]) => kind === 'rider') ? [{ id: 'rider-suggestions', options: [] as Choice[] }] : []),
        ...(people.some(([, kind]) => kind === 'patroller')
          ? [{ id: 'patroller-suggestions', options: loaded.patrollers.map((p) => ({ value: String(p.id), label: p.name })) }]
          : []),
      ],
    };
  }

  /**
   * The filters in force, by name, each with a link that removes it: "3PL: Road Runner's",
   * "Item: Thermal Bag 40L / Yellow", "Rider: Hamza Karim (100001)".
   */
  async function chips(res: Response, raw: Query, values: Values, loaded: Loaded, current: Query): Promise<Chip[]> {
    const out: Chip[] = [];
    const remove = (...names: string[]) => href(path, without(current, ...POSITION_PARAM_NAMES, ...names));
    const done = new Set<string>();
    for (const [name, def] of Object.entries(resource.filters)) {
      if (done.has(name) || !raw[name]) continue;
      const picker = pickers.find((p) => p.replaces.includes(name));
      if (picker) {
        picker.replaces.forEach((replaced) => done.add(replaced));
        const [product, variation] = picker.replaces.map((replaced) => raw[replaced] ?? '');
        const item = loaded.items.find((i) => (!product || i.product_id === product) && (!variation || i.variation_id === variation));
        const text = !item
          ? `product ${product || 'any'}, variation ${variation || 'any'} (no such item)`
          : variation
            ? itemLabel(item)
            : `${item.product} (any variation)`;
        out.push({ label: picker.label, text, removeHref: remove(...picker.replaces) });
        continue;
      }
      const kind = resource.people?.[name];
      let text = raw[name];
      if (kind) {
        const id = String(values[def.aliasOf ?? name] ?? raw[name]);
        const person = await choices[kind](id, scopeOf(res), clientSignal(res));
        text = person ? personLabel(person) : `${id} (no such ${kind})`;
      } else if (def.type === 'boolean' || def.type === 'enum' || resource.choices?.[name]) {
        const value = def.type === 'boolean' ? (values[name] ? '1' : '0') : raw[name];
        text = choicesFor(resource.filters, name, resource.choices?.[name]).find((c) => c.value === value)?.label ?? raw[name];
      }
      out.push({ label: kind === 'rider' ? 'Rider' : kind === 'patroller' ? 'Patroller' : def.label, text, removeHref: remove(name) });
    }
    return out;
  }

  async function page(req: Request, res: Response): Promise<void> {
    const values = await valuesOf(req, res, path);
    if (!values) return;
    const { sort, dir } = sortOf(values);
    const perPage = Number(values.per_page ?? DEFAULT_PER_PAGE);
    const position = values.position as ReturnType<typeof positionOf>;
    const keyCount = sortKeys(resource.sorts[sort], dir).length;

    // The page's rows by their sort keys (a range of an index, or an offset over the keys alone),
    // their columns computed for those rows only; and the total, counted up to the cap.
    const keys = pageKeys({
      source: () => keysOf(values),
      sort: resource.sorts[sort],
      dir,
      tieBreak: resource.tieBreak,
      backwards: position.backwards,
      cursor: position.cursor,
      offset: position.offset,
      limit: perPage + 1,
    });
    const signal = clientSignal(res);
    const [[counted], found, loaded] = await Promise.all([
      queryRows<{ total: string }>(pool, toNative(cappedCount(keysOf(values), countCap, resource.countOrder)), signal),
      queryRows<Row>(
        pool,
        toNative(pageRows(resource.columns(resource.filtered(values), values), keys, resource.sorts[sort], dir, resource.tieBreak)),
        signal,
      ),
      load(res),
    ]);
    const total = { count: Math.min(Number(counted.total), countCap), capped: Number(counted.total) > countCap };
    const { rows: pageRowsFound, before, after } = pageOf(found, position, perPage);

    // Every link starts from the filters and list settings of this page.
    const current = stringQuery(req.query as Values, [...filterNames, ...LIST_PARAM_NAMES]);
    const filtersOnly = stringQuery(req.query as Values, filterNames);
    const listSettings = without(current, ...POSITION_PARAM_NAMES);
    const pager = pagerOf({ path, current, position, total, perPage, rows: pageRowsFound, keyCount, before, after });

    const shown = resource.table.filter((column) => column.only !== 'csv');
    const headers = shown.map((column) => {
      if (!column.sort) return { label: column.label, numeric: column.numeric };
      const active = column.sort === sort;
      const nextDir: Dir = active ? (dir === 'asc' ? 'desc' : 'asc') : (column.firstDir ?? 'asc');
      return {
        label: column.label,
        numeric: column.numeric,
        href: href(path, { ...listSettings, sort: column.sort, dir: nextDir }),
        ariaSort: active ? (dir === 'asc' ? 'ascending' : 'descending') : undefined,
      };
    });
    const rows = pageRowsFound.map((row) => cellsOf(shown, row));

    const list = {
      total: total.count,
      capped: total.capped,
      perPage,
      ...pager,
      pastEnd: total.count > 0 && pageRowsFound.length === 0,
      perPageLinks: PER_PAGE_CHOICES.map((n) => ({
        n,
        href: href(path, { ...listSettings, per_page: n === String(DEFAULT_PER_PAGE) ? '' : n }),
        current: Number(n) === perPage,
      })),
      csvHref: href(`${path}.csv`, without(listSettings, 'per_page')),
      printHref: resource.printable ? links.reports(filtersOnly) : undefined,
      resetHref: path,
      filtered: Object.keys(filtersOnly).some((name) => filtersOnly[name] !== ''),
      headers,
      rows,
    };
    const raw = stringQuery(req.query as Values);
    await render(res, 'list', {
      title: resource.title,
      section: resource.section,
      back: req.originalUrl,
      resource,
      equipmentTabs,
      form: form(raw, loaded),
      chips: await chips(res, raw, values, loaded, current),
      list,
    });
  }

  async function csv(req: Request, res: Response): Promise<void> {
    const values = await valuesOf(req, res, `${path}.csv`);
    if (!values) return;
    if (req.method === 'HEAD') {
      // The headers a GET would send, without reading the whole table for a body nobody receives.
      res.status(200).type('text/csv; charset=utf-8').set('Cache-Control', 'no-store').end();
      return;
    }
    const { sort, dir } = sortOf(values);
    const query = orderAll(resource.columns(resource.filtered(values), values), resource.sorts[sort], dir, resource.tieBreak);
    const day = today();
    const filename =
      typeof resource.csvName === 'string'
        ? csvFileName(resource.csvName, resource.filters, values, day, { companyFields: resource.companyFields, people: resource.people })
        : resource.csvName(values);
    const { key, what } = sessionKey(req);
    await streamLimit.run(key, what, () =>
      streamCsv(streamPool, toNative(query), res, {
        filename: `${filename}.csv`,
        columns: resource.table
          .filter((column) => column.only !== 'table')
          .map((column) => ({ label: column.label, text: (row: Row) => cellText(column, row) })),
      }),
    );
  }

  return { page, csv };
}
