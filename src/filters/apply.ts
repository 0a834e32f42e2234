import type { Knex } from 'knex';
import { sql } from '../db/knex';
import type { ParamDef, ParamValues, Params } from './define';

/** The value a filter compares its column with: an enum's stored value where it has one. */
function stored(def: ParamDef, value: unknown): unknown {
  const choice = def.choices?.find((c) => c.value === value);
  return choice?.stored ?? value;
}

/**
 * Adds a WHERE clause for every supplied filter that names a column, or its own condition (a hook). Day bounds are inclusive and
 * read in the session's time zone: `_from` is midnight of that day, `_to` is before the next midnight,
 * which keeps the comparison on the bare column so its index serves it.
 */
export function applyFilters<P extends Params>(
  builder: Knex.QueryBuilder,
  params: P,
  values: ParamValues<P>,
  only?: ReadonlyArray<keyof P & string>,
): Knex.QueryBuilder {
  for (const name of only ?? Object.keys(params)) {
    const def = params[name];
    const value = values[name as keyof P];
    if (value === undefined) continue;
    if (def.where) {
      def.where(builder, value as never);
      continue;
    }
    if (!def.column) continue;
    switch (def.op ?? 'eq') {
      case 'eq':
        builder.where(def.column, stored(def, value) as string | number | boolean);
        break;
      case 'fromDay':
        builder.where(def.column, '>=', sql.raw('?::date::timestamptz', [value as string]));
        break;
      case 'toDay':
        builder.where(def.column, '<', sql.raw('(?::date + 1)::timestamptz', [value as string]));
        break;
      case 'isNull':
        if (value) builder.whereNull(def.column);
        else builder.whereNotNull(def.column);
        break;
    }
  }
  return builder;
}

/**
 * A list's filters over the API's: `own` added to `params`, and a builder that applies them over
 * `filtered` (which applies the API's). The list's own filters are named once, in `own`.
 */
export function withOwnFilters<const P extends Params, const O extends Params, V>(
  params: P,
  own: O,
  filtered: (values: V) => Knex.QueryBuilder,
) {
  const all: P & O = { ...params, ...own };
  const names = Object.keys(own) as Array<keyof (P & O) & string>;
  return {
    params: all,
    filtered: (values: V & ParamValues<P & O>) => applyFilters(filtered(values), all, values, names),
  };
}
