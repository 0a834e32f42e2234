import type { Response } from 'express';
import type { ParamDef } from '../filters/define';
import { clientSignal } from '../http/client-signal';
import { scopeOf } from '../html/scope';
import { href, without, type Query } from '../html/urls';
import { itemLabel, personLabel } from './choices';
import type { ListContext } from './list-context';
import type { Values } from './list-definition';
import type { ItemPicker } from './list-fields';
import type { Loaded } from './list-form';
import { POSITION_PARAM_NAMES, choicesFor } from './list-params';

// The filters in force, by name, each with a link that removes it: "3PL: Road Runner's",
// "Item: Thermal Bag 40L / Yellow", "Rider: Hamza Karim (100001)".

export interface Chip {
  label: string;
  text: string;
  removeHref: string;
}

/** An item picker's chip text: the item its two ids name, or what was asked for when none is known. */
function itemText(picker: ItemPicker, raw: Query, loaded: Loaded): string {
  const [product, variation] = picker.replaces.map((replaced) => raw[replaced] ?? '');
  const item = loaded.items.find((i) => (!product || i.product_id === product) && (!variation || i.variation_id === variation));
  if (!item) return `product ${product || 'any'}, variation ${variation || 'any'} (no such item)`;
  return variation ? itemLabel(item) : `${item.product} (any variation)`;
}

/** One filter's chip text: a person by name, a select's value by its label, else the value as given. */
async function filterText(context: ListContext, res: Response, name: string, def: ParamDef, raw: Query, values: Values) {
  const { resource, fields, deps } = context;
  const kind = fields.people[name];
  if (kind) {
    const id = String(values[def.aliasOf ?? name] ?? raw[name]);
    const person = await deps.choices[kind](id, scopeOf(res), clientSignal(res));
    return person ? personLabel(person) : `${id} (no such ${kind})`;
  }
  if (def.type === 'boolean' || def.type === 'enum' || fields.choices[name]) {
    const value = def.type === 'boolean' ? (values[name] ? '1' : '0') : raw[name];
    return choicesFor(resource.filters, name, fields.choices[name]).find((c) => c.value === value)?.label ?? raw[name];
  }
  return raw[name];
}

/** The chips of the filters `raw` gives; `current` is the page's query, which each removal link starts from. */
export async function chips(context: ListContext, res: Response, raw: Query, values: Values, loaded: Loaded, current: Query) {
  const { resource, fields, path } = context;
  const out: Chip[] = [];
  const remove = (...names: string[]) => href(path, without(current, ...POSITION_PARAM_NAMES, ...names));
  const done = new Set<string>();
  for (const [name, def] of Object.entries(resource.filters)) {
    if (done.has(name) || !raw[name]) continue;
    const picker = fields.itemPickers.find((p) => p.replaces.includes(name));
    if (picker) {
      picker.replaces.forEach((replaced) => done.add(replaced));
      out.push({ label: picker.label, text: itemText(picker, raw, loaded), removeHref: remove(...picker.replaces) });
      continue;
    }
    const text = await filterText(context, res, name, def, raw, values);
    out.push({ label: def.form?.label ?? def.label, text, removeHref: remove(name) });
  }
  return out;
}
