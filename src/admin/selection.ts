import { body } from 'express-validator';
import type { AttentionSettings } from '../config';
import { MAX_BIGINT } from '../filters/define';
import type { Scope } from '../filters/scope';
import type { AttentionQuery, RiderRule } from '../rules';
import type { Selection } from '../rules/owners';

// Which rows of a rider rule's list a batch (src/admin/handling.ts) marks handled or gives to a
// supervisor: those ticked on the page, or all the rows the list's filters select (its 3PL, whom its rows
// were given to, and the item of a rule whose list has one), as the page's batch form carries them.

/** A row's id as a form sends it: a bigint. */
export const isId = (value: string) => /^[0-9]{1,19}$/.test(value) && BigInt(value) <= MAX_BIGINT;

/** The most rows one can tick on a page (the lists' largest page). */
export const TICKED_MAX = 500;

/** The form's fields that say which rows. */
export interface SelectionFields {
  which?: string;
  subjects: string[];
  '3pl'?: string;
  owner?: string;
  /** The item picker's "product:variation". */
  item?: string;
}

/** Their checks (express-validator). */
export const selectionForm = [
  body('which').isIn(['ticked', 'all']).withMessage('must say which rows: those ticked, or all the filters select'),
  body('subjects')
    .customSanitizer((v: unknown) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
    .custom((v: unknown[]) => v.length <= TICKED_MAX)
    .withMessage((v: unknown[]) => `are at most ${TICKED_MAX} ticked rows (a page’s most); ${v.length.toLocaleString('en')} were sent`)
    .bail()
    .custom((v: unknown[]) => v.every((id) => typeof id === 'string' && isId(id)))
    .withMessage('must be the IDs of listed rows'),
  body('3pl').optional({ values: 'falsy' }).isString().isLength({ max: 255 }).withMessage('must be a 3PL’s name'),
  body('owner').optional({ values: 'falsy' }).isString().isLength({ max: 64 }).withMessage('must be a supervisor’s username'),
  body('item')
    .optional({ values: 'falsy' })
    .matches(/^[0-9]{1,18}:[0-9]{0,18}$/)
    .withMessage('must be an item of the list'),
];

/** The item a list was narrowed to (its picker's "product:variation"), for AttentionQuery.item. */
function itemFrom(item: string | undefined): AttentionQuery['item'] {
  if (!item) return undefined;
  const [productId, variationId] = item.split(':');
  return { productId, variationId: variationId || undefined };
}

/** Today's rows of the scope the fields select: the query (ticked ids, item) and the list's other filters. */
export function selectionOf(
  rule: RiderRule,
  fields: SelectionFields,
  settings: AttentionSettings,
  scope: Scope,
): { q: AttentionQuery; selection: Selection } {
  return {
    q: {
      asOf: null,
      settings,
      scope,
      riderIds: fields.which === 'ticked' ? (fields.subjects ?? []) : undefined,
      item: rule.list.byItem ? itemFrom(fields.item) : undefined,
    },
    selection: { company: fields['3pl'] || undefined, owner: fields.owner || undefined },
  };
}
