import type { Knex } from 'knex';
import { toNative, type NativeQuery } from '../db/knex';
import type { Params } from './define';

type Builder = Knex.QueryBuilder | Knex.Raw;

/** One compiled shape: the SQL text, and where each bound value comes from. */
interface Plan {
  text: string;
  bindings: Array<{ name: string } | { value: unknown }>;
}

/**
 * Names whose string values only ever reach the SQL as bound parameters: filters that applyFilters
 * compares with a column (equality or a day bound, no stored mapping), hooks, and the 3PL scope. A builder
 * must leave those values to applyFilters and applyScope and never branch on them. Any other
 * value (booleans, page numbers, enum literals, values a resource applies itself) may change the SQL
 * text, so it is part of the shape.
 */
function boundNames(params: Params): Set<string> {
  const names = new Set(['company_id']);
  for (const [name, def] of Object.entries(params)) {
    const compared =
      def.column && !def.choices?.some((c) => c.stored !== undefined) && ['eq', 'fromDay', 'toDay', undefined].includes(def.op);
    // A hook's value is taken as bound too; planFor() verifies it, and a hook that writes it into the text gets no plan.
    if ((compared || def.where) && ['bigint', 'text', 'date'].includes(def.type)) {
      names.add(name);
    }
  }
  return names;
}

const sentinel = (round: string, i: number) => `\u0001shape-${round}-${i}\u0001`;

/**
 * Checks that `build` really puts the named values only into bindings: built twice more with two
 * sets of stand-in values, the text must not change and must not contain them, every stand-in must
 * sit in the same binding as the real value, and every other binding must be the same constant.
 * Anything else (a value written into the text, transformed, or changing the shape) gives no plan.
 */
function planFor<V extends Record<string, unknown>>(
  build: (values: V) => Builder,
  values: V,
  names: string[],
  real: NativeQuery,
): Plan | null {
  try {
    const stand = (round: string) =>
      toNative(build({ ...values, ...Object.fromEntries(names.map((name, i) => [name, sentinel(round, i)])) }));
    const a = stand('a');
    const b = stand('b');
    if (a.text !== real.text || b.text !== real.text || real.text.includes('\u0001shape-')) return null;
    if (a.values.length !== real.values.length || b.values.length !== real.values.length) return null;
    const bindings: Plan['bindings'] = [];
    for (let j = 0; j < real.values.length; j++) {
      const i = names.findIndex((_name, k) => a.values[j] === sentinel('a', k));
      if (i >= 0) {
        if (b.values[j] !== sentinel('b', i) || real.values[j] !== values[names[i]]) return null;
        bindings.push({ name: names[i] });
      } else {
        if (a.values[j] !== real.values[j] || b.values[j] !== real.values[j]) return null;
        bindings.push({ value: real.values[j] });
      }
    }
    return { text: real.text, bindings };
  } catch {
    return null;
  }
}

/**
 * `build` compiled to SQL once per shape of its input instead of on every call. The shape is which
 * values are given, plus every value that may change the SQL text (see boundNames); values that are
 * only bound are filled into the stored plan. Each shape is verified once (planFor); one that fails
 * is built afresh every time, as are shapes beyond `maxShapes` (page numbers make many).
 */
export function compilePerShape<V extends Record<string, unknown>>(
  params: Params,
  build: (values: V) => Builder,
  maxShapes = 256,
): (values: V) => NativeQuery {
  const bound = boundNames(params);
  const plans = new Map<string, Plan | null>();
  // The names a shape's key is made of, in one fixed order: the parameters, and what the caller adds.
  const order = Object.keys(params);
  const keyOf = (values: V): string | undefined => {
    let key = '';
    let used = 0;
    for (let i = 0; i < order.length; i++) {
      const name = order[i];
      const value = values[name];
      if (value === undefined) continue;
      used++;
      key += typeof value === 'string' && bound.has(name) ? `&${name}` : `&${name}=${JSON.stringify(value)}`;
    }
    let given = 0;
    for (const name in values) if (values[name] !== undefined) given++;
    return given === used ? key : undefined;
  };
  return (values) => {
    let key = keyOf(values);
    if (key === undefined) {
      // A name that is not a parameter (a caller's own, such as the token's company): learnt once.
      for (const name of Object.keys(values).sort()) if (!order.includes(name)) order.push(name);
      key = keyOf(values)!;
    }
    const plan = plans.get(key);
    if (plan) return { text: plan.text, values: plan.bindings.map((b) => ('name' in b ? values[b.name] : b.value)) };
    const query = toNative(build(values));
    if (plan === undefined && plans.size < maxShapes) {
      const names = order.filter((name) => typeof values[name] === 'string' && bound.has(name));
      plans.set(key, planFor(build, values, names, query));
    }
    return query;
  };
}
