import type { Knex } from 'knex';
import type { ParamValues, Params } from '../filters/define';
import type { Scope } from '../filters/scope';
import type { Dir, ListSort } from '../queries/keyset';
import { listFields, type ListFields } from './list-fields';
import type { Row } from './stream-csv';

// What an admin list is: its filters (the definitions the API uses, with their form hints), the
// builders that read it, its sorts and its columns. The list engine (list-page.ts) serves any of them.

/** A request's values as the engine holds them: the filters', the list's own (sort, page) and the scope. */
export type Values = Record<string, unknown>;

/** What a list's builders receive: its filters' validated values and the supervisor's scope. */
export type ListValues<P extends Params> = ParamValues<P> & Scope;

export interface ListColumn<S extends string = string> {
  key: string;
  label: string;
  /** The allow-list name to sort by, if this column sorts (one of the list's sorts: checked by the type); and the direction of a first click. */
  sort?: S;
  firstDir?: Dir;
  numeric?: boolean;
  /** Kept on one line (datetimes). */
  nowrap?: boolean;
  /** The cell's text in the table and in the CSV; the row's value under `key` by default. */
  text?: (row: Row) => string;
  /**
   * The same text written by PostgreSQL, over the list's columns as `t.<key>` (a column with `text` or
   * `items` needs it for its list's CSV to be written by COPY; see src/admin/csv-copy.ts).
   */
  csvSql?: string;
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
  /** A box to tick the row for the list's batch form (its `batch`): the value it sends, and whom it is about. */
  pick?: (row: Row) => { value: string; about: string };
}

export interface RowAction {
  /** Unique on the page: the form's fields are named by it. */
  key: string;
  url: string;
  subject: string;
  about: string;
  /** The key of the row the page opens at after this one is saved (set by rowsOf). */
  next?: string;
}

/**
 * A list as its module writes it: `V` is what its builders take (ListValues of its filters, through
 * defineList), `S` the names of its sorts, which its default sort and its columns' sorts must be.
 */
interface ListShape<V, S extends string = string> {
  path: string;
  /** Its filters also select riders for the batch report at /admin/reports. */
  printable?: boolean;
  /** Where its rows, ticked or all the filters select, are marked handled at once (a rule's list). */
  batch?: string;
  title: string;
  intro: string;
  section: string;
  noun: [singular: string, plural: string];
  /** The sorts offered, by URL name: each an order an index serves (see ListSort). */
  sorts: Readonly<Record<S, ListSort>>;
  /** The row's id (a bigint column): the last sort key, and what a page's rows are found by. */
  tieBreak: string;
  defaultSort: { sort: NoInfer<S>; dir: Dir };
  filtered: (values: V) => Knex.QueryBuilder;
  /** The rows the filters keep, for counting and paging: no columns, only the joins the filters and sorts use. */
  keys?: (values: V) => Knex.QueryBuilder;
  /**
   * With `keys`: the joins a page's rows are read from once the keys found their ids, without the filters
   * (the keys applied them: each filter is written once per page); the engine adds the scope (r.company_id).
   */
  joined?: () => Knex.QueryBuilder;
  /** How many rows from its end a page number is read (list-page.ts): FAR_ROWS with `keys`, else FAR_ROWS_UNKEYED. */
  farRows?: number;
  columns: (builder: Knex.QueryBuilder, values: V) => Knex.QueryBuilder;
  table: Array<ListColumn<NoInfer<S>>>;
  /** The CSV's file name without `.csv`: the list's name, which the filters or the day are added to (csv-name.ts), or one made from the filters. */
  csvName: string | ((values: V) => string);
  /** Totals are counted up to this (the deps' countCap when not given). */
  countCap?: number;
  /**
   * The exact total of the rows the filters keep, when the list knows it without counting them (kept
   * counts: a rule of Needs attention); undefined when it does not for these values (they are counted).
   */
  total?: (values: V, run: <T extends object>(query: Knex.QueryBuilder) => Promise<T[]>) => Promise<number | undefined>;
  /**
   * The order (SQL) a capped count reads the rows in: an index's, where the rows it skips (filtered
   * out after the index) would otherwise lead the planner to join every row before it stops.
   */
  countOrder?: string;
}

/**
 * A list definition, generic in its filters: `filtered`, `keys`, `columns` and a `csvName` function
 * take exactly the values those filters validate to, so the query module's own builders fit as they are.
 * How the form offers each filter (a label, a placeholder, a lookup by name, a select's choices) is
 * the filter's own definition's `form` (src/filters/define.ts), not the list's.
 */
export interface ListDefinition<P extends Params, S extends string = string> extends ListShape<ListValues<P>, S> {
  filters: P;
}

/**
 * Any list, as the engine, the router and the bench hold them side by side. `companyFields`,
 * `people` and `itemPickers` are what the form offers by name, derived from the filters by
 * defineList (read by the bench, bench/admin-pages.ts); the engine derives them itself (list-fields.ts).
 */
export interface ListResource extends ListShape<Values> {
  filters: Params;
  companyFields?: readonly string[];
  people?: ListFields['people'];
  itemPickers?: ListFields['itemPickers'];
}

/** A value a filter of this type validates to (validate.ts): booleans and integers typed, the rest text. */
const typeOfValue = { boolean: 'boolean', integer: 'number', bigint: 'string', text: 'string', date: 'string', enum: 'string' } as const;

/**
 * Whether `values` are what `filters` validate to, with a scope: each filter's value absent or of
 * its type. The engine only passes validated values, so this holds unless a caller builds them by hand.
 */
function isListValues<P extends Params>(filters: P, values: Values): values is Values & ListValues<P> {
  const scoped = values.company_id;
  if (scoped !== undefined && scoped !== null && typeof scoped !== 'string') return false;
  return Object.entries(filters).every(([name, def]) => values[name] === undefined || typeof values[name] === typeOfValue[def.type]);
}

/** A list from its definition: its builders take the values its own filters validate to. */
export function defineList<const P extends Params, const S extends string>(definition: ListDefinition<P, S>): ListResource {
  const { filters, filtered, keys, columns, csvName, total } = definition;
  const checked = (values: Values): ListValues<P> => {
    if (isListValues(filters, values)) return values;
    throw new TypeError(`${definition.path}: values that are not those of the list's filters`);
  };
  const { companyFields, people, itemPickers } = listFields(filters);
  return {
    ...definition,
    companyFields,
    people,
    itemPickers,
    filtered: (values) => filtered(checked(values)),
    keys: keys && ((values) => keys(checked(values))),
    total: total && ((values, run) => total(checked(values), run)),
    columns: (builder, values) => columns(builder, checked(values)),
    csvName: typeof csvName === 'string' ? csvName : (values) => csvName(checked(values)),
  };
}
