// A wire shape: the keys of one JSON object of the contract, each with the SQL that gives its value
// and the JSON Schema of that value. The SQL's json_build_object and the exact-keys schema that the
// OpenAPI document publishes (and the tests hold every answer to) are both generated from it, so a
// key is written once. The field makers below pair each of the contract's formats with its schema.
import { ASSIGN_METHODS } from '../filters/common';
import { datetime as datetimeSql, dayFirst as dayFirstSql, jsonObjectText, jsonObjectTextAround, jsonValue } from './sql-fragments';

export type JsonSchema = { [keyword: string]: unknown };

export interface Field {
  /**
   * The value, as SQL over the aliases of the resource's query (the shape says which). Absent for a
   * value PostgreSQL keeps ready as JSON (the stored Questioner arrays, migration 004).
   */
  sql?: string;
  schema: JsonSchema;
}

export interface Shape<K extends string = string> {
  /** The name of its schema in the OpenAPI document's components. */
  readonly name: string;
  readonly fields: { readonly [key in K]: Field };
  /** An object with exactly these keys, every one always present (a value may still be null). */
  readonly schema: JsonSchema;
}

export function defineShape<const K extends string>(name: string, description: string, fields: { readonly [key in K]: Field }): Shape<K> {
  const properties = Object.fromEntries(Object.entries<Field>(fields).map(([key, field]) => [key, field.schema]));
  return {
    name,
    fields,
    schema: { type: 'object', description, properties, required: Object.keys(properties), additionalProperties: false },
  };
}

const quoted = (key: string) => `'${key.replace(/'/g, "''")}'`;

function sqlOf(shape: Shape, key: string, overrides: Readonly<Record<string, string>>): string {
  const value = overrides[key] ?? (shape.fields as Record<string, Field>)[key].sql;
  if (value === undefined) throw new Error(`${shape.name}.${key} has no SQL: give it where the shape is built`);
  return value;
}

/**
 * `json_build_object('key', value, ...)` in the shape's key order. `overrides`: SQL for keys whose
 * value the query gives where it builds the object (a subquery, a nested array).
 */
export function jsonObject<K extends string>(shape: Shape<K>, overrides: Partial<Record<K, string>> = {}): string {
  const pairs = Object.keys(shape.fields).map((key) => `${quoted(key)}, ${sqlOf(shape, key, overrides as Record<string, string>)}`);
  return `json_build_object(\n      ${pairs.join(',\n      ')})`;
}

type Overrides<K extends string> = Partial<Record<K, string>>;

/** Each key with its value's JSON text in SQL (through to_json). */
function textPairs<K extends string>(shape: Shape<K>, overrides: Overrides<K> = {}) {
  return Object.keys(shape.fields).map((key): [string, string] => [key, jsonValue(sqlOf(shape, key, overrides as Record<string, string>))]);
}

/** The same object as JSON text built by one concat() (see jsonObjectText), every value through to_json. */
export function jsonObjectAsText<K extends string>(shape: Shape<K>, { overrides }: { overrides?: Overrides<K> } = {}): string {
  return jsonObjectText(textPairs(shape, overrides));
}

/**
 * jsonObjectAsText in two pieces around the array `key` (see jsonObjectTextAround): the head up to
 * its `[`, the tail from its `]`; the elements between them are the caller's. `before`/`after`: literal
 * text around the object.
 */
export function jsonObjectAsTextAround<K extends string>(
  shape: Shape<K>,
  key: K,
  { overrides, before = '', after = '' }: { overrides?: Overrides<K>; before?: string; after?: string } = {},
): { head: string; tail: string } {
  // The array's own value is the caller's rows, never part of either piece.
  return jsonObjectTextAround(textPairs(shape, { ...overrides, [key]: 'NULL' } as Overrides<K>), key, before, after);
}

// ---------------------------------------------------------------------------------------------
// Fields: a value's SQL with its schema.

const refTo = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** Any value with a schema written out. */
export const field = (sql: string | undefined, schema: JsonSchema): Field => ({ sql, schema });

export const text = (sql: string | undefined, description?: string): Field =>
  field(sql, { type: 'string', ...(description && { description }) });

/** pg hands bigint columns to PostgreSQL's JSON as exact digits; JavaScript's JSON.parse rounds past 2^53. */
export const bigint = (sql: string | undefined, description: string): Field =>
  field(sql, {
    type: 'integer',
    format: 'int64',
    description: `${description} A bigint written as an exact JSON number: ids past 2^53 need a JSON parser that keeps big integers.`,
  });

/** A timestamp written `YYYY-MM-DD HH:MM:SS` in the session's time zone. */
export const datetime = (column: string, description: string): Field =>
  field(datetimeSql(column), {
    type: 'string',
    pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
    description: `${description} Written YYYY-MM-DD HH:MM:SS in the service's time zone (TIME_ZONE, default UTC).`,
    examples: ['2024-05-01 23:59:59'],
  });

/** A day written `DD-MM-YYYY`, the form of the patrol app's gear dates. */
export const dayFirst = (expression: string, description: string): Field =>
  field(dayFirstSql(expression), {
    type: 'string',
    pattern: '^\\d{2}-\\d{2}-\\d{4}$',
    description: `${description} Written DD-MM-YYYY.`,
    examples: ['01-05-2024'],
  });

/** A whole number written as text. */
export const integerText = (sql: string | undefined, description: string): Field =>
  field(sql, { type: 'string', pattern: '^-?[0-9]+$', description });

/** A validation's outcome (a boolean column) as 1 or 0. */
export const passed = (column: string, description: string): Field =>
  field(`${column}::int`, { type: 'integer', enum: [1, 0], description: `${description}: 1 passed, 0 failed.` });

/** An assign_method column as the text the contract shows (ASSIGN_METHODS: 0 = Manual, 1 = Physical). */
export function assignMethod(column: string): Field {
  const last = ASSIGN_METHODS[ASSIGN_METHODS.length - 1];
  const whens = ASSIGN_METHODS.slice(0, -1).map((m) => `WHEN ${m.stored} THEN '${m.label}' `);
  return field(`CASE ${column} ${whens.join('')}ELSE '${last.label}' END`, {
    type: 'string',
    enum: ASSIGN_METHODS.map((m) => m.label),
    description: `How the product was assigned: ${ASSIGN_METHODS.map((m) => `assign_type ${m.value} is ${m.label}`).join(', ')}.`,
  });
}

/** The same field where the value may also be null. */
export const orNull = (of: Field): Field => ({ sql: of.sql, schema: { ...of.schema, type: [of.schema.type, 'null'] } });

/** An array of another shape's objects. */
export const listOf = (shape: Shape, sql: string | undefined, description: string, minItems?: number): Field =>
  field(sql, { type: 'array', items: refTo(shape.name), description, ...(minItems && { minItems }) });

/** One object of another shape. */
export const objectOf = (shape: Shape, sql: string | undefined): Field => field(sql, refTo(shape.name));

/** A reference to a shape's schema, as the OpenAPI document holds them. */
export const ref = (shape: Shape): JsonSchema => refTo(shape.name);

/** The schema of a JSON array of a shape's objects. */
export const arrayOf = (shape: Shape, description: string, minItems?: number): JsonSchema =>
  listOf(shape, undefined, description, minItems).schema;
