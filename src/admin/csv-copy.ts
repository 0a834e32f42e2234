import type { NativeQuery } from '../db/knex';
import { inlineParameters } from '../db/copy';
import type { ListColumn } from './list-definition';

// A list's CSV written by PostgreSQL (COPY … TO STDOUT WITH (FORMAT csv)), as fast as psql's COPY of the
// same rows: each cell's text is its column's SQL (`csvSql`, or the value under its key), made safe
// for spreadsheets as spreadsheetSafe() does (src/admin/stream-csv.ts), the same file the JavaScript
// path writes (test/admin-csv-head.test.ts holds them equal for every list, sort and direction).

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The list's CSV columns, in order. */
const csvOnes = (columns: readonly ListColumn[]) => columns.filter((column) => column.only !== 'table');

/** Whether PostgreSQL can write every cell of the list's CSV: each column is its key's value, or has its SQL. */
export const copyable = (columns: readonly ListColumn[]) =>
  csvOnes(columns).every((column) => column.csvSql !== undefined || (!column.text && !column.items));

/**
 * A cell as spreadsheetSafe() writes it: a leading `'` on text a spreadsheet would run as a formula
 * (beginning with `=`, `+`, `-`, `@`, a tab or a carriage return: codes 61, 43, 45, 64, 9, 13), unless it
 * is a plain number. The first character's code is looked at first: a regular expression or a text
 * comparison on every cell costs about a third of the statement.
 */
const safe = (cell: string) =>
  `CASE WHEN ascii(${cell}) IN (9, 13, 43, 45, 61, 64) AND ${cell} !~ '^[+-]?[0-9]+(\\.[0-9]+)?$' THEN '''' || ${cell} ELSE ${cell} END`;

/**
 * The COPY of `rows` (the list's columns, in its order) as the list's CSV, its header line first when
 * `header`. An empty cell is written as NULL is, unquoted, as csv-stringify writes it.
 */
export function csvCopy(columns: readonly ListColumn[], rows: NativeQuery, header: boolean): string {
  const csv = csvOnes(columns);
  const cells = csv.map((column, i) => `nullif(${column.csvSql ?? `t.${ident(column.key)}::text`}, '') AS c${i}`);
  const safeCells = csv.map((column, i) => `${safe(`u.c${i}`)} AS ${ident(column.label)}`);
  return `COPY (SELECT ${safeCells.join(', ')} FROM (SELECT ${cells.join(', ')} FROM (${inlineParameters(rows)}) AS t) AS u) TO STDOUT WITH (FORMAT csv${header ? ', HEADER' : ''})`;
}
