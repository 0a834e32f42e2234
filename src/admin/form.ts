import type { FieldErrors } from '../http/errors';
import type { Params } from '../filters/define';
import { choicesFor, type Choice } from './list-params';
import type { Query } from '../html/urls';

// The filter form is drawn from the same definitions the validator and the SQL use: one field per
// filter, in their order, labelled with their label, with the validator's messages beside them.

export interface Field {
  name: string;
  id: string;
  label: string;
  control: 'text' | 'numeric' | 'date' | 'select';
  value: string;
  options: Array<Choice & { selected: boolean }>;
  errors: string[];
  suggestions?: string; // the id of a <datalist>
  placeholder?: string;
  /** Where suggestions for what is typed are looked up (public/admin/lookup.js fills the datalist). */
  lookup?: string;
  /** A select's options in labelled groups (the item picker), instead of `options`. */
  groups?: Array<{ label: string; options: Array<Choice & { selected: boolean }> }>;
  /** The label of a select's empty option. */
  anyLabel: string;
  /** Links that set the range this field ends ("Last 7 days"). */
  presets?: ReadonlyArray<{ label: string; href: string }>;
  /** What it shows is longer than one column holds (a long 3PL name, a long hint): it takes two. */
  wide?: boolean;
}

export interface FormModel {
  action: string;
  fields: Field[];
  hidden: Array<{ name: string; value: string }>;
  /** Suggestions for text fields (see Field.suggestions), drawn at the form's end. */
  datalists?: Array<{ id: string; options: Choice[] }>;
  /** Messages about names that are no field of the form (unknown or list parameters). */
  otherErrors: string[];
  hasErrors: boolean;
}

export interface FormOptions {
  action: string;
  params: Params;
  raw: Query;
  errors?: FieldErrors;
  choices?: Readonly<Record<string, readonly Choice[]>>;
  /** Names of text fields to offer suggestions for, and the id of their datalist. */
  suggestions?: Readonly<Record<string, string>>;
  /** List parameters kept as hidden fields, so a new filter keeps the sort and page size. */
  keep?: readonly string[];
  labels?: Readonly<Record<string, string>>;
  /** Labels of selects' empty options, where "Any" would not fit. */
  anyLabels?: Readonly<Record<string, string>>;
  /** Text shown in empty text fields, by name. */
  placeholders?: Readonly<Record<string, string>>;
  /** Text fields whose suggestions are looked up as one types: field name → lookup URL. */
  lookups?: Readonly<Record<string, string>>;
  /** Selects that stand for two parameters (a product and its variation): drawn where the first one was. */
  pickers?: readonly Picker[];
  /** The page's parameters that are no field (sort, page size): a message about one names it by its label. */
  others?: Params;
  /** Links that set a date range, by its upper bound's name: shown under both of the range's fields (see date-presets.ts). */
  presets?: Readonly<Record<string, ReadonlyArray<{ label: string; href: string }>>>;
}

/**
 * One select for a pair of parameters: its option values are `product:variation` (`12:` for any
 * variation of product 12), and the list page turns a submitted value back into the two parameters.
 */
export interface Picker {
  name: string;
  label: string;
  replaces: readonly [product: string, variation: string];
  groups: Array<{ label: string; options: Choice[] }>;
}

/** The picker value that the two parameters' values select. */
export function pickerValue(picker: Picker, raw: Query): string {
  const [product, variation] = [raw[picker.replaces[0]] ?? '', raw[picker.replaces[1]] ?? ''];
  if ((!product && !variation) || !/^[0-9]*$/.test(product + variation)) return '';
  if (product) return `${product}:${variation}`;
  // A variation alone (as the API allows): the option of that variation, whatever its product.
  const found = picker.groups.flatMap((group) => group.options).find((option) => option.value.endsWith(`:${variation}`));
  return found?.value ?? '';
}

/** About what one column of the form shows whole (11.5rem of a 16px font): a field showing more takes two. */
const WIDE_CHARACTERS = 20;

/** The longest text a field shows in its box: its options' labels, its value or its hint. */
function widest(f: Field): number {
  const labels = [...f.options, ...(f.groups ?? []).flatMap((g) => g.options)].map((o) => o.label);
  return Math.max(0, ...[...labels, f.value, f.placeholder ?? ''].map((text) => [...text].length));
}

export function formModel(options: FormOptions): FormModel {
  const { params, raw, errors = {} } = options;
  const pickerOf = new Map((options.pickers ?? []).flatMap((picker) => picker.replaces.map((name) => [name, picker] as const)));
  const fields: Field[] = Object.entries(params)
    .filter(([name, def]) => !def.aliasOf && (!pickerOf.has(name) || pickerOf.get(name)!.replaces[0] === name))
    .map(([name, def]): Field => {
      const picker = pickerOf.get(name);
      if (picker) {
        const value = pickerValue(picker, raw);
        return {
          name: picker.name,
          id: `f-${picker.name}`,
          label: picker.label,
          control: 'select',
          value,
          options: [],
          groups: picker.groups.map((group) => ({
            label: group.label,
            options: group.options.map((c) => ({ ...c, selected: c.value === value })),
          })),
          // The picker stands for two parameters: a message about one of them names it and its value.
          errors: [
            ...picker.replaces.flatMap((replaced) =>
              (errors[replaced] ?? []).map((message) => `${params[replaced].label} “${raw[replaced] ?? ''}” ${message}`),
            ),
            ...(errors[picker.name] ?? []),
          ],
          anyLabel: 'Any',
        };
      }
      const value = raw[name] ?? '';
      const fieldErrors = errors[name] ?? [];
      let control: Field['control'] = 'text';
      if (def.type === 'bigint') control = 'numeric';
      // A text box typed as YYYY-MM-DD (views/admin/partials/filter-form.ejs), so a bad date stays visible beside its message.
      else if (def.type === 'date') control = 'date';
      else if (def.type === 'boolean' || def.type === 'enum') control = 'select';
      if (options.choices?.[name]) control = 'select'; // e.g. an id picked from a known list
      return {
        name,
        id: `f-${name}`,
        label: options.labels?.[name] ?? def.label,
        control,
        value,
        options:
          control === 'select' ? choicesFor(params, name, options.choices?.[name]).map((c) => ({ ...c, selected: c.value === value })) : [],
        errors: fieldErrors,
        suggestions: options.suggestions?.[name],
        lookup: options.lookups?.[name],
        placeholder: options.placeholders?.[name],
        anyLabel: options.anyLabels?.[name] ?? 'Any',
        presets: options.presets?.[name],
      };
    });
  for (const f of fields) f.wide = widest(f) > WIDE_CHARACTERS;
  const known = new Set([...fields.map((f) => f.name), ...pickerOf.keys()]);
  const otherErrors = Object.entries(errors)
    .filter(([name]) => !known.has(name))
    .map(([name, messages]) => `${params[name]?.label ?? options.others?.[name]?.label ?? name} ${messages.join('; ')}`);
  const hidden = (options.keep ?? []).filter((name) => raw[name] && !errors[name]).map((name) => ({ name, value: raw[name] }));
  return { action: options.action, fields, hidden, otherErrors, hasErrors: Object.keys(errors).length > 0 };
}
