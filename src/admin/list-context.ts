import type { Reader } from '../db/pool';
import type { Params } from '../filters/define';
import { queryValidator, type QueryValidator } from '../filters/validate';
import type { StreamLimit } from '../http/stream-limit';
import type { Dir } from '../queries/keyset';
import { links } from '../html/links';
import type { ChoiceSource } from './choices';
import { dayIn } from './date-presets';
import type { ListResource, Values } from './list-definition';
import { formWords, listFields, type ListFields } from './list-fields';
import { CSV_HEAD_ROWS, DEFAULT_COUNT_CAP } from './list-pager';
import { listParams } from './list-params';
import { ShortMemo } from './memo';

// What every step of a list page shares, worked out once per list when the router is built.

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
  /** A CSV's first rows, read as a page is before the rest in one statement (CSV_HEAD_ROWS; 0: all in one statement). */
  csvHeadRows?: number;
  /** A list's CSV written by PostgreSQL (COPY) when every column can be; false: by JavaScript. */
  csvCopy?: boolean;
}

export interface ListContext {
  resource: ListResource;
  /** What the form offers by name, from the filters' form hints. */
  fields: ListFields;
  /** The list's own parameters (page, sort, …), each sort labelled by its column's header. */
  ownParams: Params;
  /** The filters and the list's own parameters, judged in the form's words. */
  validate: QueryValidator<Params>;
  filterNames: string[];
  /** The page's address (/admin/…). */
  path: string;
  equipmentTabs: ListDeps['tabs'];
  countCap: number;
  csvHeadRows: number;
  /** The page's counts past the cap, by statement: a team paging through a long list counts it once in PAST_CAP_MS. */
  pastCap: ShortMemo<object[]>;
  deps: Required<Omit<ListDeps, 'countCap' | 'tabs' | 'csvHeadRows'>>;
}

/**
 * How long a count past the cap ("more than 10,000") stands before a page counts again. Only such
 * counts are kept: an exact total below the cap is read by every page, as rows come and go.
 */
export const PAST_CAP_MS = 30000;

export function listContext(resource: ListResource, deps: ListDeps): ListContext {
  const { tabs, countCap = DEFAULT_COUNT_CAP, today = () => dayIn('UTC'), csvHeadRows = CSV_HEAD_ROWS, csvCopy = true, ...rest } = deps;
  // Each sort is named by the header of the column it orders (the URL name when no column shows it).
  const sortChoices = Object.keys(resource.sorts).map((value) => ({
    value,
    label: resource.table.find((column) => column.sort === value)?.label ?? value,
  }));
  const ownParams = listParams(sortChoices);
  return {
    resource,
    fields: listFields(resource.filters),
    ownParams,
    validate: queryValidator({ ...formWords(resource.filters), ...ownParams }, 'form'),
    filterNames: Object.keys(resource.filters),
    path: links.list(resource.path),
    equipmentTabs: tabs.filter((tab) => tab.section === resource.section),
    countCap: resource.countCap ?? countCap,
    csvHeadRows,
    pastCap: new ShortMemo<object[]>(PAST_CAP_MS),
    deps: { ...rest, today, csvCopy },
  };
}

/** The order asked for, or the list's default (a sort asked without a direction is ascending). */
export const sortOf = ({ resource }: Pick<ListContext, 'resource'>, values: Values) => ({
  sort: (values.sort as string | undefined) ?? resource.defaultSort.sort,
  dir: (values.dir as Dir | undefined) ?? (values.sort ? 'asc' : resource.defaultSort.dir),
});
