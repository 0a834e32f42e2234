// The filters several resources share, written once: the rider id, the 3PL by exact name, the
// inclusive day range, and how an assignment was made (0 = Manual, 1 = Physical).
import { enumParam, type Choice, type ParamDef } from './define';

/**
 * assign_method as stored (0, 1), as the filters take it ('0', '1') and as the answers and the admin
 * pages write it (Manual, Physical). The wire's CASE, its JSON Schema and the forms read this list.
 */
export const ASSIGN_METHODS = [
  { value: '0', label: 'Manual', stored: 0 },
  { value: '1', label: 'Physical', stored: 1 },
] as const satisfies readonly Choice[];

/** The assign-type filter over an assign_method column. */
export const assignType = (column: string) =>
  enumParam(ASSIGN_METHODS, {
    column,
    label: 'Assign type',
    description: ASSIGN_METHODS.map((m) => `${m.value} = ${m.label}`).join(', ') + '.',
  });

/** A rider id compared with `column`; an admin list's form takes it by name too. */
export const riderId = (column: string, description: string) =>
  ({
    type: 'bigint',
    column,
    label: 'Rider ID',
    description,
    form: { label: 'Rider', placeholder: 'Name or ID', lookup: 'rider' },
  }) as const satisfies ParamDef;

/** A 3PL company by its exact name; `whose` says whose 3PL it is ("riders", "checks of riders"). */
export const company = (column = 'c.name', whose = 'riders') =>
  ({
    type: 'text',
    column,
    label: '3PL',
    description: `Only ${whose} of this 3PL company (exact, case-sensitive).`,
    form: { lookup: 'company' },
  }) as const satisfies ParamDef;

/**
 * `<name>_from` and `<name>_to`: an inclusive range of calendar days over `column`. `label` is the
 * forms' verb ("Assigned"), `what` starts the descriptions ("Assigned", "Checks").
 */
export function dayRange<const N extends string>(name: N, column: string, label: string, what: string) {
  const from = `${name}_from` as const;
  const to = `${name}_to` as const;
  return {
    [from]: { type: 'date', column, op: 'fromDay', label: `${label} from`, description: `${what} on or after this day (inclusive).` },
    [to]: {
      type: 'date',
      column,
      op: 'toDay',
      from,
      label: `${label} to`,
      description: `${what} on or before this day (inclusive: the whole day counts).`,
    },
  } as { readonly [K in `${N}_from`]: ParamDef & { type: 'date'; op: 'fromDay' } } & {
    readonly [K in `${N}_to`]: ParamDef & { type: 'date'; op: 'toDay' };
  };
}

/** A validation's filter (1 passed, 0 failed) as an admin list's select words it. */
export const PASSED_FAILED = [
  { value: '1', label: 'Passed' },
  { value: '0', label: 'Failed' },
] as const satisfies readonly Choice[];

/** Why a product was replaced: the exchange filter's literals and the answers' values. */
export const REPLACEMENT_TYPES = ['Lost', 'Accident', 'Exchange'] as const;
