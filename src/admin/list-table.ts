import type { Dir } from '../queries/keyset';
import { href, type Query } from '../html/urls';
import type { ListColumn } from './list-definition';
import type { Row } from './stream-csv';

// A list's columns as the table partial (views/admin/partials/table.ejs) and the CSV draw them.

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
    pick: column.pick?.(row),
    numeric: column.numeric,
    nowrap: column.nowrap,
    auto: column.auto,
  }));

/**
 * Rows' cells (cellsOf), each row's action told the key of the row after it (the one before, for the
 * last): after a Save the page opens at that row, not at its top.
 */
export function rowsOf(columns: readonly ListColumn[], rows: readonly Row[]) {
  const drawn = rows.map((row) => cellsOf(columns, row));
  const keyOf = (cells: ReturnType<typeof cellsOf> | undefined) => cells?.find((cell) => cell.action)?.action?.key;
  drawn.forEach((cells, i) => {
    const action = cells.find((cell) => cell.action)?.action;
    if (action) action.next = keyOf(drawn[i + 1]) ?? keyOf(drawn[i - 1]);
  });
  return drawn;
}

/** The table's header cells: a sortable column links to its order (reversed when it is the current one). */
export function headersOf(columns: readonly ListColumn[], path: string, listSettings: Query, sort: string, dir: Dir) {
  return columns.map((column) => {
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
}

/** The CSV's columns: every column but those of the table only, each cell as the table's text. */
export const csvColumns = (columns: readonly ListColumn[]) =>
  columns.filter((column) => column.only !== 'table').map((column) => ({ label: column.label, text: (row: Row) => cellText(column, row) }));
