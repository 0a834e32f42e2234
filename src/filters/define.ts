// A resource's accepted query parameters, declared once as data. The validator, the SQL, the admin
// filter forms and the OpenAPI document are all derived from these definitions.
import type { Knex } from 'knex';

export type ParamType = 'bigint' | 'text' | 'date' | 'boolean' | 'enum' | 'integer';

/** How a filter compares its column: equality, a calendar-day bound, or presence of a value. */
export type FilterOp = 'eq' | 'fromDay' | 'toDay' | 'isNull';

export interface ParamDef {
  type: ParamType;
  /** Short label for forms and tables. */
  label: string;
  /** One sentence for the reference documentation. */
  description: string;
  /** The SQL column the filter compares. Without one, the resource's query applies the value itself. */
  column?: string;
  op?: FilterOp;
  /** enum: the accepted literals, exactly as written. */
  values?: readonly string[];
  /** enum: a label per literal for forms and documents, and what it is stored as where that differs. */
  choices?: readonly Choice[];
  /** integer: inclusive range and the value used when absent. */
  min?: number;
  max?: number;
  default?: number;
  /** toDay: the name of the matching lower bound, which may not come after this one. */
  from?: string;
  /** Another name accepted for this parameter; the two may not be given together. */
  aliasOf?: string;
  /**
   * For a filter that is not a plain comparison of one column: adds its condition to the builder.
   * The value must reach the SQL only as a bound parameter (the compiled plans check that).
   */
  where?: (builder: Knex.QueryBuilder, value: never) => void;
  /** How an admin list's filter form offers it, beyond a field of its type and `label`. */
  form?: FormHints;
}

/**
 * An admin list's field for a filter (src/admin/list-form.ts reads it; the API and the other forms
 * draw the plain field). Each is optional: a filter without hints is a field of its type.
 */
export interface FormHints {
  /** The field's and its chip's label where it is not `label` ("Rider" for a rider ID also typed as a name). */
  label?: string;
  /** Text shown in the empty field. */
  placeholder?: string;
  /** What the field is picked from, read per page for the supervisor's 3PL (see Lookup). */
  lookup?: Lookup;
  /** A select's options in the form's words ("Passed" for 1); the form's messages and chips name them too. */
  choices?: readonly Choice[];
}

/**
 * - `company`: a select of the 3PLs the supervisor may see.
 * - `values`: a select of the values present in the column (one of VALUE_COLUMNS in
 *   src/queries/choices.ts, by the filter's name).
 * - `supervisor`: a select of the supervisors who see the supervisor's 3PL, and nobody ("unassigned").
 * - `rider`, `patroller`: an ID, or a name typed and suggested (a whole name is taken when one person has it).
 * - `{ item, variation }`: one select of products and their variations, named `item` in the form,
 *   standing for this product ID filter and the variation ID filter `variation`.
 */
export type Lookup = 'company' | 'values' | 'rider' | 'patroller' | 'supervisor' | { item: string; variation: string };

/** One accepted literal of an enum, its label, and the value stored for it where that differs. */
export interface Choice {
  value: string;
  label: string;
  stored?: string | number;
}

export type Params = Readonly<Record<string, ParamDef>>;

type ValueOf<D extends ParamDef> = D['type'] extends 'boolean' ? boolean : D['type'] extends 'integer' ? number : string;

/** The validated values of one request: bigint ids stay exact strings, booleans and integers are typed. */
export type ParamValues<P extends Params> = { -readonly [K in keyof P]?: ValueOf<P[K]> };

export function defineParams<const P extends Params>(params: P): P {
  return params;
}

/** An enum parameter from its choices: the literals are the choices' values. */
export function enumParam<const C extends readonly Choice[]>(choices: C, def: Omit<ParamDef, 'type' | 'values' | 'choices'>) {
  return { ...def, type: 'enum', values: choices.map((c) => c.value), choices } as const satisfies ParamDef;
}

/**
 * A filter applied by its own condition (see ParamDef.where), typed by the value it receives:
 * booleans and integers arrive typed, every other type as the validated text.
 */
export function hookParam<const T extends ParamType>(
  def: Omit<ParamDef, 'where' | 'column' | 'op'> & { type: T },
  where: (builder: Knex.QueryBuilder, value: ValueOf<{ type: T } & ParamDef>) => void,
) {
  return { ...def, where: where as ParamDef['where'] };
}

export const MAX_BIGINT = 9223372036854775807n;
export const MAX_TEXT_LENGTH = 255;

/** The message for each kind of bad value: one wording, used by the API, the forms and the docs. */
export function describeRule(def: ParamDef): string {
  switch (def.type) {
    case 'bigint':
      return `must be a whole number from 1 to ${MAX_BIGINT}`;
    case 'integer':
      return `must be a whole number from ${def.min} to ${def.max}`;
    case 'date':
      return 'must be a real calendar day written YYYY-MM-DD';
    case 'boolean':
      return 'must be one of 1, 0, true, false (any letter case)';
    case 'enum':
      return `must be one of: ${(def.values ?? []).join(', ')}`;
    case 'text':
      return `must be at most ${MAX_TEXT_LENGTH} characters, without NUL`;
  }
}
