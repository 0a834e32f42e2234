import type { FieldErrors } from '../http/errors';
import type { Params } from '../filters/define';
import { choicesFor, type Choice } from './list-params';
import type { Query } from './urls';

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
  /** The label of a select's empty option. */
  anyLabel: string;
}

export interface FormModel {
  action: string;
  fields: Field[];
  hidden: Array<{ name: string; value: string }>;
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
}

export function formModel(options: FormOptions): FormModel {
  const { params, raw, errors = {} } = options;
  const fields: Field[] = Object.entries(params)
    .filter(([, def]) => !def.aliasOf)
    .map(([name, def]) => {
      const value = raw[name] ?? '';
      const fieldErrors = errors[name] ?? [];
      let control: Field['control'] = 'text';
      if (def.type === 'bigint') control = 'numeric';
      // A bad date stays in a text box, so the value the message is about is still visible.
      else if (def.type === 'date') control = fieldErrors.length ? 'text' : 'date';
      else if (def.type === 'boolean' || def.type === 'enum') control = 'select';
      if (options.choices?.[name]) control = 'select'; // e.g. an id picked from a known list
      return {
        name,
        id: `f-${name}`,
        label: options.labels?.[name] ?? def.label,
        control,
        value,
        options: control === 'select' ? choicesFor(params, name, options.choices?.[name]).map((c) => ({ ...c, selected: c.value === value })) : [],
        errors: fieldErrors,
        suggestions: options.suggestions?.[name],
        anyLabel: options.anyLabels?.[name] ?? 'Any',
      };
    });
  const known = new Set(fields.map((f) => f.name));
  const otherErrors = Object.entries(errors)
    .filter(([name]) => !known.has(name))
    .map(([name, messages]) => `${name} ${messages.join('; ')}`);
  const hidden = (options.keep ?? []).filter((name) => raw[name] && !errors[name]).map((name) => ({ name, value: raw[name] }));
  return { action: options.action, fields, hidden, otherErrors, hasErrors: Object.keys(errors).length > 0 };
}
