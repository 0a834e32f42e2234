import { links } from '../html/links';
import type { Rule, RuleColumn } from '../rules';
import type { ListColumn } from './list-page';
import type { Row } from './stream-csv';

// The columns every rule's table and list add to the rule's own: the note a row was handled with before,
// the "Mark handled" control and, on a rider rule's list, the box that picks a row for a batch.

/** A row that came back (new evidence, or its "until" day passed) shows the note it was handled with. */
const earlierNote: ListColumn = {
  key: 'earlier_note',
  label: 'Handled before',
  text: (row) =>
    row.earlier_note
      ? `${row.earlier_note} (${row.earlier_by}, ${row.earlier_on}${row.earlier_until ? `, until ${row.earlier_until}` : ''})`
      : '',
  csvSql: `CASE WHEN coalesce(t.earlier_note, '') <> '' THEN t.earlier_note || ' (' || t.earlier_by || ', ' || t.earlier_on || CASE WHEN coalesce(t.earlier_until, '') <> '' THEN ', until ' || t.earlier_until ELSE '' END || ')' ELSE '' END`,
};

/** Who a row of a rider rule was given to (src/rules/owners.ts withOwner): on the page, the list and the CSV. */
export const ownerColumn: ListColumn = {
  key: 'owner',
  label: 'Assigned to',
  auto: true,
  text: (row) => (row.owner ? String(row.owner) : '–'),
  csvSql: `coalesce(nullif(t.owner::text, ''), '–')`,
};

/** The table's "Mark handled" control (never in the CSV). */
const handle = (rule: Rule): ListColumn => ({
  key: 'handle',
  label: 'Handle',
  only: 'table',
  action: (row) => {
    const subject = String(rule.subject === '3pl' ? row.company_id : row.rider_id);
    return {
      key: `${rule.name}-${row.assignment_id ?? subject}`,
      url: links.attentionHandled(rule.name),
      subject,
      about: `${row.rider_name ?? row.company}`,
    };
  },
});

/** The box that ticks a rider rule's row for its list's batch form (never in the CSV). */
export const pick: ListColumn = {
  key: 'pick',
  label: 'Pick',
  only: 'table',
  pick: (row) => ({ value: String(row.rider_id), about: String(row.rider_name) }),
};

/** A rule's column as the list engine draws it. */
const listColumn = ({ href, ...column }: RuleColumn): ListColumn => ({ ...column, ...(href ? { href: (row: Row) => href(row) } : {}) });

/** A rule's columns on the page and in its list: its own, the earlier note, `more`, and the handle control. */
export function ruleColumns(rule: Rule, more: ListColumn[] = []): ListColumn[] {
  return [...rule.columns.map(listColumn), earlierNote, ...more, handle(rule)];
}
