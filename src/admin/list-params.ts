import { defineParams, enumParam, type Params } from '../filters/define';

// The admin lists' own parameters, beside each resource's filters: the API has none of these, and
// its validator rejects unknown names, so they are declared here and validated the same way.

export const PER_PAGE_CHOICES = ['25', '50', '100'] as const;
export const DEFAULT_PER_PAGE = 25;
export const MAX_PAGE = 1000000;

/** The list's own parameters; `sorts` are the list's orders, each labelled by its column's header. */
export function listParams(sorts: readonly Choice[]) {
  return defineParams({
    page: { type: 'integer', min: 1, max: MAX_PAGE, label: 'Page', description: 'Which page, from 1.' },
    from_end: {
      type: 'integer',
      min: 1,
      max: MAX_PAGE,
      label: 'Page from the end',
      description: 'Which page counted from the end, 1 being the last, read backwards.',
    },
    after: { type: 'text', label: 'The Next link', description: 'The rows after this one (a Next link’s sort key of its last row).' },
    before: {
      type: 'text',
      label: 'The Previous link',
      description: 'The rows before this one (a Previous link’s sort key of its first row).',
    },
    day: {
      type: 'date',
      label: 'Go to a day',
      description: 'The rows from this day on, in the list’s order (for an order by date: newest first, the day and before it).',
    },
    per_page: { type: 'enum', values: PER_PAGE_CHOICES, label: 'Rows per page', description: 'Rows per page: 25, 50 or 100.' },
    sort: enumParam(sorts, { label: 'Sort by', description: 'The column the rows are ordered by.' }),
    dir: enumParam(
      [
        { value: 'asc', label: 'smallest first' },
        { value: 'desc', label: 'largest first' },
      ],
      { label: 'Order', description: 'Smallest first (asc) or largest first (desc).' },
    ),
  });
}

/** The parameters that say where in the list a page is: a new filter, sort or page size drops them. */
export const POSITION_PARAM_NAMES = ['page', 'from_end', 'after', 'before', 'day'] as const;

/** Names of the list parameters, which the filter form carries as hidden fields or leaves out. */
export const LIST_PARAM_NAMES = Object.keys(listParams([])) as ReadonlyArray<string>;

export type Choice = { value: string; label: string };

/**
 * The labels of a select's options: the list's own, else the definition's choices (assign_type:
 * Manual, Physical); booleans without labels show Yes and No, other enums their literal values.
 */
export function choicesFor(params: Params, name: string, labels?: readonly Choice[]): Choice[] {
  if (labels) return [...labels];
  const def = params[name];
  if (def.type === 'boolean')
    return [
      { value: '1', label: 'Yes' },
      { value: '0', label: 'No' },
    ];
  if (def.choices) return def.choices.map(({ value, label }) => ({ value, label }));
  return (def.values ?? []).map((value) => ({ value, label: value }));
}
