import { sql } from '../db/knex';

// Formats shared by every wire shape, written once so all resources agree.

/** A datetime as `YYYY-MM-DD HH:MM:SS` in the session's time zone (null stays null). */
export const datetime = (column: string) => `to_char(${column}, 'YYYY-MM-DD HH24:MI:SS')`;

/** A day as `DD-MM-YYYY`, the form of the patrol app's gear dates. */
export const dayFirst = (expression: string) => `to_char(${expression}, 'DD-MM-YYYY')`;

/** Selects one JSON text column named `json`, built by PostgreSQL and passed through untouched. */
export const jsonColumn = (objectSql: string) => sql.raw(`${objectSql}::text AS json`);

/** A value as JSON text, as json_build_object writes it (SQL NULL as null). */
export const jsonValue = (expression: string) => `coalesce(to_json(${expression})::text, 'null')`;

/**
 * json_build_object(key, value, ...)::text for values already in JSON text (see jsonValue), built
 * by one concat(): the same bytes (`{"key" : value, ...}`), without json_build_object and json_agg
 * copying a large value through their JSON output again at every level (a list page is ~250 KB),
 * nor a chain of || copying it once per piece.
 */
export const jsonObjectText = (pairs: Array<[key: string, jsonText: string]>) =>
  `concat('{', ${pairs.map(([key, value], i) => `${keyText(key, i)}, ${value}`).join(', ')}, '}')`;

/** `"key" : ` as an SQL literal, with the `, ` before every key but the first. */
const keyText = (key: string, i: number) => `'${i ? ', ' : ''}${JSON.stringify(key).replace(/'/g, "''")} : '`;

/**
 * The text of jsonObjectText(pairs), with literal text `before` and `after` it (no quotes), in two
 * pieces around the value of the array `key`: the head ends with its `[`, the tail starts with its
 * `]`. What goes between them (the array's elements, `, `-separated) can then be sent as rows of
 * their own, so no one value holds the whole object (a list page is ~250 KB; see sendJsonText).
 */
export const jsonObjectTextAround = (pairs: Array<[key: string, jsonText: string]>, key: string, before = '', after = '') => {
  const at = pairs.findIndex(([k]) => k === key);
  if (at < 0) throw new Error(`jsonObjectTextAround: no key ${key}`);
  const pieces = (from: number, to: number) => pairs.slice(from, to).flatMap(([k, value], i) => [keyText(k, from + i), value]);
  return {
    head: `concat('${before}{', ${[...pieces(0, at), keyText(key, at)].join(', ')}, '[')`,
    tail: `concat(']', ${[...pieces(at + 1, pairs.length), `'}${after}'`].join(', ')})`,
  };
};

/**
 * "Held": an assignment not returned, written once. `assignment(a)`: held now; `heldAt(a, moment)`:
 * not yet returned at that moment (SQL). Riders, by the item counts kept on them (migration 002):
 * holding some now, having returned some, or having any equipment; literal so partial indexes match.
 */
export const held = {
  assignment: (alias = 'a') => `${alias}.deleted_at IS NULL`,
  returned: (alias = 'a') => `${alias}.deleted_at IS NOT NULL`,
  heldAt: (moment: string, alias = 'a') => `(${alias}.deleted_at IS NULL OR ${alias}.deleted_at >= ${moment})`,
  riderHolding: 'r.active_items > 0',
  riderReturned: 'r.returned_items > 0',
  riderWithAny: '(r.active_items > 0 OR r.returned_items > 0)',
} as const;

/** A date or time as the day it falls on in the session's time zone, `YYYY-MM-DD` (SQL). */
export const dayText = (expression: string) => `to_char(${expression}, 'YYYY-MM-DD')`;
