// A resource's accepted query parameters, declared once as data. The validator, the SQL, the admin
// filter forms and the OpenAPI document are all derived from these definitions.

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
  /** enum: what each literal is stored as, where that differs from the literal. */
  dbValues?: Readonly<Record<string, string | number>>;
  /** integer: inclusive range and the value used when absent. */
  min?: number;
  max?: number;
  default?: number;
  /** toDay: the name of the matching lower bound, which may not come after this one. */
  from?: string;
  /** Another name accepted for this parameter; the two may not be given together. */
  aliasOf?: string;
}

export type Params = Readonly<Record<string, ParamDef>>;

type ValueOf<D extends ParamDef> = D['type'] extends 'boolean' ? boolean : D['type'] extends 'integer' ? number : string;

/** The validated values of one request: bigint ids stay exact strings, booleans and integers are typed. */
export type ParamValues<P extends Params> = { -readonly [K in keyof P]?: ValueOf<P[K]> };

export function defineParams<const P extends Params>(params: P): P {
  return params;
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
