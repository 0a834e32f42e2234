import type { Request, Response } from 'express';
import { MAX_TEXT_LENGTH } from '../filters/define';
import { clientSignal } from '../http/client-signal';
import { fieldErrors, type FieldErrors } from '../http/errors';
import { scopeOf } from '../html/scope';
import { href, stringQuery, type Query } from '../html/urls';
import type { ChoiceSource, Named } from './choices';
import type { ListContext } from './list-context';
import type { Values } from './list-definition';
import type { ItemPicker, Person } from './list-fields';
import { MAX_PAGE, PER_PAGE_CHOICES } from './list-params';

// The address a submitted form stands for, when it differs: an item picker's `product:variation`
// becomes the two id parameters, and a name typed where an id goes becomes that person's id when
// exactly one matches. So links, CSV and the API's parameters stay ids.

export interface Canonical {
  /** Where to send the browser (303), when the form's address stands for another. */
  location?: string;
  /** What cannot be: a picker's value of no item, a name of nobody or of several. */
  errors: FieldErrors;
  /** The query for the validator to judge the rest by: the ids found, no field already in error. */
  checked: Values;
}

/** An item picker's value as its two id parameters, in `out` and `checked`; or why it cannot be, in `errors`. */
function splitPicker(picker: ItemPicker, query: Values, out: Query, checked: Values, errors: FieldErrors): void {
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

/** Up to two people whose name holds `typed` (enough to tell one from several), within the scope. */
async function peopleNamed(choices: ChoiceSource, kind: Person, typed: string, res: Response): Promise<Named[]> {
  if (kind === 'rider') return choices.riders(typed, scopeOf(res), 2, clientSignal(res));
  const needle = typed.toLocaleLowerCase();
  return (await choices.patrollers(scopeOf(res), clientSignal(res))).filter((p) => p.name.toLocaleLowerCase().includes(needle)).slice(0, 2);
}

/** Why a typed name names no one person (shown after what was typed: “Nobody” is no rider’s name…). */
const notOne = (kind: Person, found: number) =>
  found
    ? `matches several ${kind}s: pick one from the suggestions, or give the ID`
    : `is no ${kind}’s name: give a name from the suggestions, or the ID`;

/** The request's query made canonical for `target` (the page's or the CSV's address). */
export async function canonical({ fields, deps }: ListContext, req: Request, res: Response, target: string): Promise<Canonical> {
  const query = req.query as Values;
  const out = stringQuery(query);
  const checked: Values = { ...query };
  const errors = fieldErrors();
  // A form sends every field, set or not: the address keeps only those set, so a shared link is short.
  const values = Object.values(query);
  let changed = values.some((value) => value === '') && values.every((value) => typeof value === 'string');
  // A size between the offered ones is the nearest offered; a page number past any list is the last
  // there can be, which the page answers as past the end. Both as a 303 to that address.
  const perPage = query.per_page;
  if (typeof perPage === 'string' && /^[0-9]{1,9}$/.test(perPage) && !(PER_PAGE_CHOICES as readonly string[]).includes(perPage)) {
    const wanted = Number(perPage);
    out.per_page = PER_PAGE_CHOICES.reduce((best, size) =>
      Math.abs(Number(size) - wanted) < Math.abs(Number(best) - wanted) ? size : best,
    );
    changed = true;
  }
  for (const name of ['page', 'from_end'] as const) {
    const value = query[name];
    if (typeof value === 'string' && /^[0-9]{7,30}$/.test(value) && BigInt(value) > BigInt(MAX_PAGE)) {
      out[name] = String(MAX_PAGE);
      changed = true;
    }
  }
  for (const picker of fields.itemPickers) {
    if (!(picker.name in query)) continue;
    changed = true;
    splitPicker(picker, query, out, checked, errors);
  }
  for (const [name, kind] of Object.entries(fields.people)) {
    const typed = typeof query[name] === 'string' ? (query[name] as string).trim() : '';
    // A name holds a letter; anything else is an ID for the validator to judge.
    if (!/\p{L}/u.test(typed) || typed.length > MAX_TEXT_LENGTH) continue;
    // No name holds a NUL (PostgreSQL's text cannot, and refuses one in a query): nobody's, unasked.
    const found = typed.includes('\0') ? [] : await peopleNamed(deps.choices, kind, typed, res);
    if (found.length === 1) {
      out[name] = checked[name] = found[0].id;
      changed = true;
    } else {
      delete checked[name];
      errors[name] = [notOne(kind, found.length)];
    }
  }
  const location = changed && !Object.keys(errors).length ? href(target, out) : undefined;
  return { location, errors, checked };
}
