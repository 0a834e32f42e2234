import type { Knex } from 'knex';
import type { AttentionSettings } from '../config';
import type { Scope } from '../filters/scope';
import type { Dir, ListSort } from '../queries/keyset';

// "Needs attention" is a set of rules, each one object made by defineRule() in a file of this folder
// and listed once in ./index.ts. Everything else derives from that list: the rule names the database
// accepts (a test holds them to migration 014's CHECK), the Needs attention page, each rider rule's
// list and CSV, the home page's counts, handling and undo, the rider page's and the report's open
// points, and the tests that run for every rule (describe.each). Adding a rule is one file here, one
// line in ./index.ts and, if it keeps data, its migration: docs/DEVELOPMENT.md, "Adding a rule".

export interface AttentionQuery {
  /**
   * YYYY-MM-DD; null: today in the session's time zone, read as now: the gaps between checks still
   * open and the items riders hold now (their kept counts), each from an index in the list's order.
   * A day given, even today's, is judged at its end from the history.
   */
  asOf: string | null;
  settings: AttentionSettings;
  scope: Scope;
  /** Only these riders (a report's). */
  riderIds?: readonly string[];
  /**
   * Only the rider this column of an outer query names (a LATERAL's: its rows are then read from the
   * rider's own index entries, one probe per outer row).
   */
  riderOf?: string;
  /** Only the rows of the 3PL of this name (a lead's filter, within the scope). */
  company?: string;
  /**
   * Leave out the rows supervisors marked handled (the work queue, its counts and CSV); a report and
   * the rider page list every open point, handled or not.
   */
  hideHandled?: boolean;
  /** Only the rows supervisors marked handled (what the exact counts take off the rule's kept count). */
  onlyHandled?: boolean;
  /** Only the riders with an item of this product (and variation) in the rule's evidence: a rule whose list has `byItem`. */
  item?: { productId?: string; variationId?: string };
}

/** A column of a rule's table and CSV: src/admin/attention.ts draws it with the list engine. */
export interface RuleColumn {
  key: string;
  label: string;
  numeric?: boolean;
  nowrap?: boolean;
  /** A value in the writer's own script (a name): shown with dir="auto". */
  auto?: boolean;
  /** Where the value links (src/html/links.ts), if anywhere. */
  href?: (row: Record<string, unknown>) => string | undefined;
  /** The sort of the rule's list this column's header orders by, and the direction of its first click. */
  sort?: string;
  firstDir?: Dir;
  /** The cell's text when it is not the value itself. */
  text?: (row: Record<string, unknown>) => string;
  /** The same text as SQL over `t.<key>`, for the list's CSV written by PostgreSQL (src/admin/csv-copy.ts). */
  csvSql?: string;
  /** A badge's kind beside the text ("fail"). */
  badge?: (row: Record<string, unknown>) => 'fail' | undefined;
}

/** A piece of an open point's sentence: plain words, or a value in the writer's own script (dir="auto"). */
export type Words = Array<string | { auto: string }>;

/** What a rule says of one rider on the rider page and the printable report. */
export interface OpenPoint {
  /** The rows of the riders asked for (q.riderIds), each with its rider_id, in the order shown. */
  rows: (q: AttentionQuery) => Knex.QueryBuilder;
  /** One row as a sentence. */
  sentence: (row: Record<string, unknown>) => Words;
}

/**
 * A rule over riders, as a list (src/admin/list-page.ts reads it like the other lists): its rows
 * without columns, the columns over them, the sorts it offers, the row's id. `core` keeps only rows in
 * the scope, of the riders asked for, and (with hideHandled) not handled.
 */
export interface RuleList<S extends string = string> {
  core: (q: AttentionQuery) => Knex.QueryBuilder;
  /**
   * `core` without its riders and 3PLs (no r, no c), for a query that narrows by neither (no scope, no
   * 3PL, no riders asked for): what a page's keys and a capped count read then, one probe of riders per
   * row fewer (a deep page's 10,000 keys: a third of its time). Its rows are core's: every kept row's
   * rider exists (assignments and checks hold theirs by foreign key).
   */
  bare?: (q: AttentionQuery) => Knex.QueryBuilder;
  columns: (builder: Knex.QueryBuilder, q: AttentionQuery) => Knex.QueryBuilder;
  sorts: Readonly<Record<S, ListSort>>;
  /** One of `sorts` (checked by the type, as each column's `sort`). */
  defaultSort: { sort: NoInfer<S>; dir: Dir };
  /** The row's id (a rider, or an item of one). */
  tieBreak: string;
  /** The rider a row is about: what a handling of the row covers. */
  subject: string;
  /**
   * The order of the rule's index (migration 014) that a capped count reads its rows in, so that it
   * stops at its cap (docs/runs/ADMIN-BENCHMARKS.md, "Why the lists and rules read what they read"); none where the planner's
   * own order reads fewer rows.
   */
  countOrder?: string;
  /** Its list offers an item (product and variation) to narrow it by, which `core` reads from q.item. */
  byItem?: boolean;
}

interface RuleWords<N extends string> {
  /** The URL's and the database's name of the rule (access.attention_handled.rule). */
  name: N;
  title: string;
  /** What the rule means, with the thresholds in force. */
  means: (s: AttentionSettings) => string;
  /** What its count counts (the home page). */
  counted: string;
  /** What one row is. */
  noun: [singular: string, plural: string];
  columns: RuleColumn[];
  openPoint: OpenPoint;
}

/** A rule whose rows are riders (or items of riders): listed, paged and handled per rider. */
export interface RiderRule<N extends string = string> extends RuleWords<N> {
  subject: 'rider';
  list: RuleList;
  /**
   * What a handling covers up to, as SQL over `list.core`'s rows: its newest value for the rider is what
   * a handling recorded now covers, so newer evidence brings the rider back.
   */
  evidence: (q: AttentionQuery) => Knex.Raw;
}

/** A rule whose rows are 3PLs: all of them on the page, none paged. */
export interface CompanyRule<N extends string = string> extends RuleWords<N> {
  subject: '3pl';
  /** Every row (hideHandled: not handled), each with company_id, company and `count`ed ones marked. */
  rows: (q: AttentionQuery) => Knex.QueryBuilder;
  /** The rows the rule's count counts, among `rows` (a boolean column). */
  counts: string;
  /** The newest evidence of the rule for one 3PL at the end of the as-of day: a scalar SQL expression of `company`. */
  evidence: (company: string) => string;
  /** `evidence`'s bindings after those of `company`. */
  evidenceBindings: (q: Pick<AttentionQuery, 'asOf'>) => Array<string | null>;
  /** A row's link (its `href`, for a column's): where what it counts is listed, for the as-of day. */
  href: (row: Record<string, unknown>, asOf: string, s: AttentionSettings) => string;
}

export type Rule<N extends string = string> = RiderRule<N> | CompanyRule<N>;

/** A rider rule as its file writes it: its default sort and its columns' sorts are names of its list's sorts. */
export type RiderRuleDefinition<N extends string, S extends string> = Omit<RiderRule<N>, 'list' | 'columns'> & {
  list: RuleList<S>;
  columns: Array<RuleColumn & { sort?: NoInfer<S> }>;
};

/** One rule: its subject, evidence, words, list or rows, and open point, each required by the type. */
export function defineRule<const N extends string, const S extends string>(rule: RiderRuleDefinition<N, S>): RiderRule<N>;
export function defineRule<const N extends string>(rule: CompanyRule<N>): CompanyRule<N>;
export function defineRule<const N extends string>(rule: Rule<N>): Rule<N> {
  if (!/^[a-z]+(-[a-z]+)*$/.test(rule.name)) throw new Error(`A rule's name is lower-case words joined by "-": ${rule.name}`);
  return rule;
}
