import { query, type ValidationChain } from 'express-validator';
import { fieldErrors, type FieldErrors, invalidQuery } from '../http/errors';
import { MAX_BIGINT, MAX_TEXT_LENGTH, describeRule, type ParamDef, type ParamValues, type Params } from './define';

const DIGITS = /^[0-9]+$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const BOOLEAN = /^(1|0|true|false)$/i;

/** A calendar day written YYYY-MM-DD that exists (no 2025-02-30). */
export function isRealDay(value: string): boolean {
  const match = DAY.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

// express-validator's isInt({max}) compares as a float and isISO8601 accepts 20240101, so the rules
// below compare digits exactly (BigInt) and dates by their calendar fields.
export interface Rule {
  /** express-validator's check, run only for a value `test` refuses: it words the message. */
  chain: ValidationChain;
  /** The same check as a plain predicate: a valid query passes without express-validator at all. */
  test: (value: string) => boolean;
  /** The value as the query builders take it, from a value the check accepted. */
  convert?: (value: string) => unknown;
}

/** A rule whose chain is `test` itself, with `rule` as its message. */
const checked = (name: string, rule: string, test: (value: string) => boolean, convert?: (value: string) => unknown): Rule => ({
  chain: query(name).custom(test).withMessage(rule),
  test,
  convert,
});

// One check per chain: express-validator gathers a chain's values (a lodash pipeline) again before
// each of its steps, so a bail and a sanitizer in the chain cost as much as the check itself. The
// conversion of an accepted value is done after the chain, on the value it checked. And the chain runs
// only when the value fails the same check done directly (`test`): a valid request makes no chain's
// objects at all, while the messages still come from express-validator.
export function ruleFor(name: string, def: ParamDef, words: Words): Rule {
  const rule = words === 'form' ? describeForForm(def) : describeRule(def);
  // Absent and empty values never reach a rule (see below), so no .optional() is needed.
  switch (def.type) {
    case 'bigint':
      return checked(
        name,
        rule,
        (v) => DIGITS.test(v) && BigInt(v) >= 1n && BigInt(v) <= MAX_BIGINT,
        (v) => BigInt(v).toString(),
      );
    case 'integer':
      return checked(name, rule, (v) => DIGITS.test(v) && Number(v) >= def.min! && Number(v) <= def.max!, Number);
    case 'date':
      return checked(name, rule, isRealDay);
    case 'boolean':
      return {
        chain: query(name).matches(BOOLEAN).withMessage(rule),
        test: (v) => BOOLEAN.test(v),
        convert: (v) => v === '1' || v.toLowerCase() === 'true',
      };
    case 'enum': {
      const values = def.values as string[];
      return { chain: query(name).isIn(values).withMessage(rule), test: (v) => values.includes(v) };
    }
    case 'text':
      return checked(name, rule, (v) => v.length <= MAX_TEXT_LENGTH && !v.includes('\0'));
  }
}

/** Whether a problem was found (without making the list of names). */
function hasAny(errors: FieldErrors): boolean {
  for (const _ in errors) return true;
  return false;
}

/**
 * Whose words the messages are in. `api` (the default): the contract's, naming parameters and
 * literals, and stopping at malformed names before judging values. `form`: a filter form's, naming
 * other fields by their labels and choices by theirs, with every problem of the query at once.
 */
export type Words = 'api' | 'form';

/** A bad value's message in a form's words: a closed set by its labels. */
export function describeForForm(def: ParamDef): string {
  if ((def.type === 'enum' || def.type === 'boolean') && def.choices)
    return `must be one of: ${def.choices.map((c) => c.label).join(', ')}`;
  if (def.type === 'boolean') return 'must be Yes (1) or No (0)';
  // In a supervisor's words: no 19-digit bound, no NUL.
  if (def.type === 'bigint') return 'must be an ID: a whole number, 1 or more';
  if (def.type === 'text') return `must be at most ${MAX_TEXT_LENGTH} characters, with no control characters`;
  return describeRule(def);
}

export interface QueryValidator<P extends Params> {
  (rawQuery: Record<string, unknown>): Promise<ParamValues<P>>;
  /**
   * The same, without a promise for a query that needs none: the values at once when every value
   * passes its plain check (or an error thrown at once), a promise only when express-validator has to
   * word a refused value's message. For the API's hot path, where each await is a turn of the loop.
   */
  now(rawQuery: Record<string, unknown>): ParamValues<P> | Promise<ParamValues<P>>;
  params: P;
}

/**
 * Builds the validator of one resource's query string. It rejects, with every problem named:
 * unknown names, repeated names (they arrive as arrays), bracket forms (`rider_id[$gt]`), bad values,
 * an alias given with its target, and a `*_from` later than its `*_to`. Empty values count as absent.
 */
export function queryValidator<const P extends Params>(params: P, words: Words = 'api'): QueryValidator<P> {
  const names = Object.keys(params);
  const rules = new Map(names.map((name) => [name, ruleFor(name, params[name], words)]));
  const accepted = names.join(', ');
  const form = words === 'form';
  /** How a message names another parameter: by its label on a form. */
  const named = (name: string) => (form ? (params[name]?.label ?? name) : name);
  // The parameters the last step has anything to do for (aliases, ranges, defaults), in their order: found once.
  const after = Object.entries(params).filter(
    ([, def]) => def.aliasOf || def.from || (def.type === 'integer' && def.default !== undefined),
  );

  const now = (rawQuery: Record<string, unknown>): ParamValues<P> | Promise<ParamValues<P>> => {
    const errors = fieldErrors();
    const add = (name: string, message: string) => (errors[name] ??= []).push(message);
    const present: Array<[string, string, Rule]> = [];

    for (const [name, value] of Object.entries(rawQuery)) {
      const rule = rules.get(name);
      if (!rule) {
        const bracket = name.indexOf('[');
        if (bracket > 0 && rules.has(name.slice(0, bracket))) {
          add(
            name,
            form
              ? `is not a filter of this page; give ${named(name.slice(0, bracket))} once`
              : `bracket forms are not accepted; give ${name.slice(0, bracket)}=value once`,
          );
        } else {
          add(name, form ? 'is not a filter of this page' : `is not a known parameter; accepted parameters are: ${accepted}`);
        }
      } else if (typeof value !== 'string') {
        add(name, 'must be given at most once');
      } else if (value !== '') {
        present.push([name, value, rule]);
      }
    }
    if (!form && hasAny(errors)) throw invalidQuery(errors);

    const values: Record<string, unknown> = {};
    const refused: Array<[string, string, Rule]> = [];
    for (const entry of present) {
      const [name, value, rule] = entry;
      if (rule.test(value)) values[name] = rule.convert ? rule.convert(value) : value;
      else refused.push(entry);
    }
    // Only the refused values meet express-validator, for their messages. On a snapshot: Express 5
    // re-parses req.query on every read and does not keep writes to it. Each chain reports its own
    // errors (a dry run leaves nothing on the request to gather again with validationResult).
    if (refused.length) {
      const request = { query: rawQuery };
      return Promise.all(refused.map(([, , rule]) => rule.chain.run(request, { dryRun: true }))).then((results) => {
        results.forEach((result, i) => {
          for (const error of result.array()) if (error.type === 'field') add(error.path, String(error.msg));
          if (result.isEmpty()) throw new Error(`validation of ${refused[i][0]}: the check and its chain disagree`);
        });
        return lastStep(rawQuery, values, errors, add);
      });
    }
    return lastStep(rawQuery, values, errors, add);
  };

  /** Aliases, ranges and defaults, over the values that passed; then every problem at once, or the values. */
  const lastStep = (
    rawQuery: Record<string, unknown>,
    values: Record<string, unknown>,
    errors: FieldErrors,
    add: (name: string, message: string) => void,
  ): ParamValues<P> => {
    for (const [name, def] of after) {
      if (def.aliasOf && values[name] !== undefined) {
        if (values[def.aliasOf] !== undefined || (typeof rawQuery[def.aliasOf] === 'string' && rawQuery[def.aliasOf] !== '')) {
          add(name, `is another name for ${named(def.aliasOf)}; give only one of them`);
        }
        values[def.aliasOf] = values[name];
        delete values[name];
      }
      if (def.from && typeof values[name] === 'string' && typeof values[def.from] === 'string' && values[def.from]! > values[name]!) {
        add(name, `must not be before ${named(def.from)} (${values[def.from]})`);
      }
      if (def.type === 'integer' && values[name] === undefined && def.default !== undefined) values[name] = def.default;
    }
    if (hasAny(errors)) throw invalidQuery(errors);
    return values as ParamValues<P>;
  };
  const validate = async (rawQuery: Record<string, unknown>): Promise<ParamValues<P>> => now(rawQuery);
  return Object.assign(validate, { now, params });
}
