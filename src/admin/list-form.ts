import type { Response } from 'express';
import type { FieldErrors } from '../http/errors';
import { clientSignal } from '../http/client-signal';
import type { ValueColumn } from '../queries/choices';
import { scopeOf } from '../html/scope';
import { href, stringQuery, without, type Query } from '../html/urls';
import { links } from '../html/links';
import { UNASSIGNED } from '../rules/owners';
import { itemGroups, type ItemRow, type Named } from './choices';
import { datePresets } from './date-presets';
import { formModel } from './form';
import type { ListContext } from './list-context';
import { LIST_PARAM_NAMES, POSITION_PARAM_NAMES, type Choice } from './list-params';

// A list's filter form: one field per filter (form.ts), with what the filters' form hints ask for:
// the 3PLs, values, items and patrollers to pick from, read once per page for this supervisor.

/** What the form offers by name, for this supervisor: read once per page, shared by the form and the chips. */
export interface Loaded {
  companies: string[];
  items: ItemRow[];
  patrollers: Named[];
  supervisors: string[];
  values: Partial<Record<ValueColumn, string[]>>;
}

export async function loadChoices({ fields, deps: { choices } }: ListContext, res: Response): Promise<Loaded> {
  const scope = scopeOf(res);
  const signal = clientSignal(res);
  const [companies, items, patrollers, supervisors, ...values] = await Promise.all([
    fields.companyFields.length ? choices.companies(scope, signal) : [],
    fields.itemPickers.length ? choices.items(signal) : [],
    Object.values(fields.people).includes('patroller') ? choices.patrollers(scope, signal) : [],
    fields.supervisorFields.length ? choices.supervisors(scope, signal) : [],
    ...fields.valueFields.map((name) => choices.values(name, scope, signal)),
  ]);
  return { companies, items, patrollers, supervisors, values: Object.fromEntries(fields.valueFields.map((name, i) => [name, values[i]])) };
}

/** A select's options from the values `known`; `value` from an old link or typed by hand stays first, saying why nothing matches it. */
export function presentChoices(value: string | undefined, known: readonly string[], unknown: string): Choice[] {
  const options = known.map((v) => ({ value: v, label: v }));
  return value && !known.includes(value) ? [{ value, label: `${value} (${unknown})` }, ...options] : options;
}

/** The selects' options: the hints' choices, the 3PLs and the values present, each keeping a value nothing matches. */
function selectChoices({ fields }: ListContext, raw: Query, loaded: Loaded): Record<string, readonly Choice[]> {
  const present = (name: string, known: readonly string[], unknown: string) => presentChoices(raw[name], known, unknown);
  return {
    ...fields.choices,
    ...Object.fromEntries(fields.companyFields.map((name) => [name, present(name, loaded.companies, 'no 3PL of this name')])),
    ...Object.fromEntries(fields.valueFields.map((name) => [name, present(name, loaded.values[name] ?? [], 'none match')])),
    ...Object.fromEntries(
      fields.supervisorFields.map((name) => [
        name,
        [{ value: UNASSIGNED, label: 'Unassigned' }, ...present(name, loaded.supervisors, 'no supervisor of this name')].filter(
          (c, i, all) => all.findIndex((d) => d.value === c.value) === i,
        ),
      ]),
    ),
  };
}

/** Beside each date range's upper bound, links that set it and keep the other filters and the list's settings. */
function rangePresets({ resource, filterNames, path, deps }: ListContext, raw: Query) {
  const kept = without(stringQuery(raw, [...filterNames, ...LIST_PARAM_NAMES]), ...POSITION_PARAM_NAMES);
  const ranges = Object.entries(resource.filters).filter(([, def]) => def.type === 'date' && def.from);
  const presets = ranges.length ? datePresets(deps.today()) : [];
  return Object.fromEntries(
    ranges.map(([to, def]) => [
      to,
      presets.map((preset) => ({ label: preset.label, href: href(path, { ...kept, [def.from!]: preset.from, [to]: preset.to }) })),
    ]),
  );
}

/** The form of the list's filters, as `raw` fills it, with `errors` beside their fields. */
export function listForm(context: ListContext, raw: Query, loaded: Loaded, errors?: FieldErrors) {
  const { resource, fields, path, ownParams } = context;
  const people = Object.entries(fields.people);
  // A hint's text by filter name, where the filter's definition gives one.
  const hint = (key: 'label' | 'placeholder') =>
    Object.fromEntries(Object.entries(resource.filters).flatMap(([name, def]) => (def.form?.[key] ? [[name, def.form[key]]] : [])));
  const groups = itemGroups(loaded.items);
  return {
    ...formModel({
      presets: rangePresets(context, raw),
      action: path,
      params: resource.filters,
      raw,
      errors,
      choices: selectChoices(context, raw, loaded),
      suggestions: Object.fromEntries(people.map(([name, kind]) => [name, `${kind}-suggestions`])),
      lookups: Object.fromEntries(people.filter(([, kind]) => kind === 'rider').map(([name]) => [name, links.riderLookup])),
      labels: hint('label'),
      placeholders: hint('placeholder'),
      pickers: fields.itemPickers.map((picker) => ({ ...picker, groups })),
      keep: ['sort', 'dir', 'per_page'],
      others: ownParams,
    }),
    datalists: [
      ...(people.some(([, kind]) => kind === 'rider') ? [{ id: 'rider-suggestions', options: [] as Choice[] }] : []),
      ...(people.some(([, kind]) => kind === 'patroller')
        ? [{ id: 'patroller-suggestions', options: loaded.patrollers.map((p) => ({ value: String(p.id), label: p.name })) }]
        : []),
    ],
  };
}
