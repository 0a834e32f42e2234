import { operations } from '../src/api/v2/operations';
import { sql, toNative } from '../src/db/knex';
import { compilePerShape } from '../src/filters/compiled';
import { applyFilters } from '../src/filters/apply';
import { ASSIGN_METHODS, assignType } from '../src/filters/common';
import { defineParams, hookParam, type ParamDef, type ParamType, type Params } from '../src/filters/define';
import { queryValidator } from '../src/filters/validate';

// The API compiles each operation's SQL once per shape of its filters and fills in the values after.
// Whatever the values, that must give exactly the SQL and parameters that building afresh gives.

type Values = Record<string, unknown>;
type AnyOperation = {
  validate: ((q: Record<string, unknown>) => Promise<Values>) & { params: Parameters<typeof compilePerShape>[0] };
  build: (v: Values) => ReturnType<typeof sql.select>;
};

// Query strings per operation, several per shape, with values that differ between calls of a shape:
// each parameter alone, then all of them together (an alias without the name it stands for), each
// shape twice with two values of the parameter's type (text with the characters SQL quotes).
const SAMPLES: Record<ParamType, (def: ParamDef) => [string, string]> = {
  bigint: () => ['101', '9007199254740993'],
  text: () => ['Swift & Co', "O'Brien"],
  date: () => ['2024-01-01', '2024-02-01'],
  boolean: () => ['0', '1'],
  enum: (def) => [def.values![0], def.values![1] ?? def.values![0]],
  integer: (def) => [String(def.min ?? 1), String(Math.min((def.min ?? 1) + 1, def.max ?? Infinity))],
};
function queriesOf(params: Params): Array<Record<string, string>> {
  const entries = Object.entries(params);
  const sample = (which: 0 | 1, names: Array<[string, ParamDef]>) =>
    Object.fromEntries(names.map(([name, def]) => [name, SAMPLES[def.type](def)[which]]));
  const together = entries.filter(([, def]) => !def.aliasOf);
  return [{}, ...entries.flatMap((entry) => [sample(0, [entry]), sample(1, [entry])]), sample(0, together), sample(1, together)];
}

describe('SQL compiled once per shape', () => {
  for (const [path, op] of Object.entries(operations)) {
    it(`${path}: the same SQL and parameters as a fresh build, for every call and scope`, async () => {
      const operation = op as unknown as AnyOperation;
      const list = queriesOf(operation.validate.params);
      let builds = 0;
      const compile = compilePerShape(operation.validate.params, (values: Values) => {
        builds++;
        return operation.build(values);
      });
      // Twice over, so that the second round is served from the stored shapes; with and without a 3PL scope.
      let afterFirstRound = 0;
      for (const round of [1, 2]) {
        if (round === 2) afterFirstRound = builds;
        for (const query of list) {
          for (const company_id of [undefined, '1', '2']) {
            const values = { ...(await operation.validate({ ...query })), company_id };
            expect({ round, ...compile(values) }).toEqual({ round, ...toNative(operation.build(values)) });
          }
        }
      }
      expect(afterFirstRound).toBeGreaterThan(0);
      expect(builds).toBe(afterFirstRound); // every shape was verified and stored in the first round
    });
  }

  const params = defineParams({
    name: { type: 'text', column: 't.name', label: 'Name', description: 'x' },
  });

  it('builds afresh every time when a value is written into the SQL text instead of bound', () => {
    let builds = 0;
    const unsafe = (values: { name?: string }) => {
      builds++;
      return sql('t').select('*').whereRaw(`t.name = '${values.name}'`);
    };
    const compile = compilePerShape(params, unsafe);
    expect(compile({ name: 'a' }).text).toContain("t.name = 'a'");
    expect(compile({ name: 'b' }).text).toContain("t.name = 'b'");
    expect(builds).toBeGreaterThanOrEqual(4); // the first call also tried two stand-ins, then found no plan
  });

  it('keeps values that change the SQL text (here: a boolean without a column) in the shape', () => {
    const flags = defineParams({
      name: { type: 'text', column: 't.name', label: 'Name', description: 'x' },
      held: { type: 'boolean', label: 'Held', description: 'x' },
    });
    const build = (values: { name?: string; held?: boolean }) =>
      sql('t')
        .select('*')
        .where('t.name', values.name ?? '')
        .orderBy(values.held ? 't.id' : 't.x');
    const compile = compilePerShape(flags, build);
    for (const held of [true, false, true, false]) {
      expect(compile({ name: `n${String(held)}`, held })).toEqual(toNative(build({ name: `n${String(held)}`, held })));
    }
  });

  it('reuses a verified shape without building again, and keeps at most maxShapes', () => {
    let builds = 0;
    const build = (values: { name?: string; n?: number }) => {
      builds++;
      return sql('t')
        .select('*')
        .where('t.name', values.name ?? '')
        .limit(values.n ?? 1);
    };
    const compile = compilePerShape(params, build, 2);
    compile({ name: 'a', n: 1 });
    const afterFirst = builds;
    expect(compile({ name: 'b', n: 1 })).toEqual({ text: 'select * from "t" where "t"."name" = $1 limit $2', values: ['b', 1] });
    expect(builds).toBe(afterFirst);
    compile({ name: 'a', n: 2 }); // a second shape: numbers are part of the shape
    compile({ name: 'a', n: 3 }); // a third: over the limit, built but not kept
    const before = builds;
    expect(compile({ name: 'c', n: 3 }).values).toEqual(['c', 3]);
    expect(builds).toBe(before + 1);
  });

  it('applies a hook filter with its value bound, reusing the plan; a hook that writes the value into the text gets none', async () => {
    const hooked = defineParams({
      near: hookParam({ type: 'text', label: 'Near', description: 'x' }, (builder, near) =>
        builder.whereRaw('t.a = ? OR t.b = ?', [near, near]),
      ),
      unsafe: hookParam({ type: 'text', label: 'Unsafe', description: 'x' }, (builder, value) => builder.whereRaw(`t.c = '${value}'`)),
    });
    const validate = queryValidator(hooked);
    let builds = 0;
    const build = (values: Record<string, unknown>) => {
      builds++;
      return applyFilters(sql('t').select('*'), hooked, values);
    };
    const compile = compilePerShape(hooked, build);
    expect(compile(await validate({ near: 'x' }))).toEqual({ text: 'select * from "t" where t.a = $1 OR t.b = $2', values: ['x', 'x'] });
    const afterFirst = builds;
    expect(compile(await validate({ near: "y'" }))).toEqual({ text: 'select * from "t" where t.a = $1 OR t.b = $2', values: ["y'", "y'"] });
    expect(builds).toBe(afterFirst);
    expect(compile(await validate({ unsafe: 'p' })).text).toContain("t.c = 'p'");
    expect(compile(await validate({ unsafe: 'q' })).text).toContain("t.c = 'q'");
  });

  it('compares an enum column with the stored value of the chosen literal (assign_type 1: Physical, stored 1)', () => {
    const built = toNative(
      applyFilters(sql('assignments as a').select('*'), { assign_type: assignType('a.assign_method') }, { assign_type: '1' }),
    );
    expect(built).toEqual({ text: 'select * from "assignments" as "a" where "a"."assign_method" = $1', values: [1] });
    expect(ASSIGN_METHODS.map((m) => [m.value, m.label, m.stored])).toEqual([
      ['0', 'Manual', 0],
      ['1', 'Physical', 1],
    ]);
  });
});
