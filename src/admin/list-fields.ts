import type { Params } from '../filters/define';
import { VALUE_COLUMNS, type ValueColumn } from '../queries/choices';
import type { Choice } from './list-params';

// What a list's form offers by name, read from its filters' form hints (ParamDef.form in
// src/filters/define.ts): the 3PL selects, the selects of values present, the people picked by
// name and the item pickers. The form, the chips, the canonical address and the CSV's name use it.

export type Person = 'rider' | 'patroller';

/** A select standing for a product filter and its variation filter (see Picker in form.ts). */
export interface ItemPicker {
  name: string;
  label: string;
  replaces: readonly [product: string, variation: string];
}

export interface ListFields {
  /** Filters that take a 3PL name: a select of the 3PLs the supervisor may see. */
  companyFields: string[];
  /** Filters over a small set of values: a select of the values present within the supervisor's 3PL. */
  valueFields: ValueColumn[];
  /** Id filters picked by name: riders are suggested as one types, patrollers listed. */
  people: Record<string, Person>;
  itemPickers: ItemPicker[];
  /** Filters that take a supervisor's username: a select of those who see the supervisor's 3PL. */
  supervisorFields: string[];
  /** The selects' options in the form's words, by filter name. */
  choices: Record<string, readonly Choice[]>;
}

const isValueColumn = (name: string): name is ValueColumn => Object.hasOwn(VALUE_COLUMNS, name);

export function listFields(filters: Params): ListFields {
  const fields: ListFields = { companyFields: [], valueFields: [], people: {}, itemPickers: [], supervisorFields: [], choices: {} };
  for (const [name, def] of Object.entries(filters)) {
    const { lookup, choices, label = def.label } = def.form ?? {};
    if (choices) fields.choices[name] = choices;
    if (lookup === 'company') fields.companyFields.push(name);
    else if (lookup === 'supervisor') fields.supervisorFields.push(name);
    else if (lookup === 'rider' || lookup === 'patroller') fields.people[name] = lookup;
    else if (typeof lookup === 'object') fields.itemPickers.push({ name: lookup.item, label, replaces: [name, lookup.variation] });
    else if (lookup === 'values') {
      if (!isValueColumn(name)) throw new Error(`${name}: a filter offering the values present must be one of VALUE_COLUMNS`);
      fields.valueFields.push(name);
    }
  }
  return fields;
}

/**
 * The filters as the list's validator judges them: a select's values named as the form labels them
 * ("must be one of: Passed, Failed", not 1 and 0).
 */
export function formWords(filters: Params): Params {
  return Object.fromEntries(
    Object.entries(filters).map(([name, def]) => [name, def.form?.choices ? { ...def, choices: def.form.choices } : def]),
  );
}
