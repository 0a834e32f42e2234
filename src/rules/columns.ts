import { links } from '../html/links';
import type { RuleColumn } from './define';

// The columns several rules show.

const riderHref = (row: Record<string, unknown>) => links.rider(String(row.rider_id));

/** A rider's ID (sortable when the rule's list sorts by rider: its sort `rider_id`), name and 3PL. */
export function riderColumns(sortById: true): Array<RuleColumn & { sort?: 'rider_id' }>;
export function riderColumns(sortById: false): Array<RuleColumn & { sort?: never }>;
export function riderColumns(sortById: boolean): RuleColumn[] {
  return [
    { key: 'rider_id', label: 'Rider ID', numeric: true, href: riderHref, ...(sortById ? { sort: 'rider_id' } : {}) },
    { key: 'rider_name', label: 'Rider', auto: true, href: riderHref },
    { key: 'company', label: '3PL', auto: true },
  ];
}

/** The check a row's last check links to, when there was one. */
export const lastCheckHref = (row: Record<string, unknown>) => (row.last_check_id ? links.check(String(row.last_check_id)) : undefined);
