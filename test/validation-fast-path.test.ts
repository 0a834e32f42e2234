// A valid query passes on each rule's plain check alone; express-validator runs only for a refused value,
// to word its message. The two must agree on every value, for every parameter of every operation and list.
import { allOperations } from '../src/api/v2/operations';
import { allLists } from '../src/admin/lists';
import type { ParamDef } from '../src/filters/define';
import { ruleFor, type Words } from '../src/filters/validate';
import { fieldErrorsOf } from '../src/html/validate-or-redraw';

const SAMPLES = [
  '1',
  '0',
  '-1',
  '01',
  '007',
  '1.5',
  '1e3',
  '0x10',
  ' 1',
  '1 ',
  'abc',
  '%',
  '100',
  '101',
  '200',
  '9223372036854775807',
  '9223372036854775808',
  '99999999999999999999',
  '2026-02-28',
  '2026-02-30',
  '2024-02-29',
  '2025-02-29',
  '0000-01-01',
  '20260101',
  '2026-1-1',
  '2026-13-01',
  'true',
  'false',
  'TRUE',
  'False',
  'yes',
  'no',
  'Manual',
  'Physical',
  'manual',
  'Lost',
  'Accident',
  'Exchange',
  'Passed',
  'Failed',
  'passed',
  'a'.repeat(255),
  'a'.repeat(256),
  'x\0y',
  'Café ☕',
  '=HYPERLINK("x")',
];

const every: Array<[string, string, ParamDef, Words]> = [
  ...allOperations.flatMap((op) =>
    Object.entries(op.params).map(([name, def]): [string, string, ParamDef, Words] => [op.path, name, def, 'api']),
  ),
  ...allLists.flatMap((list) =>
    Object.entries(list.filters).map(([name, def]): [string, string, ParamDef, Words] => [list.path, name, def as ParamDef, 'form']),
  ),
];

it.each(every)('%s %s: the plain check and express-validator agree on every sample', async (_where, name, def, words) => {
  const rule = ruleFor(name, def, words);
  const samples = [...SAMPLES, ...(def.type === 'enum' ? (def.values as string[]) : [])];
  const disagreements: string[] = [];
  for (const value of samples) {
    const chainAccepts = (await rule.chain.run({ query: { [name]: value } }, { dryRun: true })).isEmpty();
    if (rule.test(value) !== chainAccepts) disagreements.push(`${JSON.stringify(value)}: check ${rule.test(value)}, chain ${chainAccepts}`);
  }
  expect(disagreements).toEqual([]);
});

it('covers every kind of parameter', () => {
  expect(new Set(every.map(([, , def]) => def.type))).toEqual(new Set(['bigint', 'integer', 'date', 'boolean', 'enum', 'text']));
});

describe('validate.now: the same answer, without a promise when none is needed', () => {
  const outcome = async (run: () => unknown) => {
    try {
      return { values: await run() };
    } catch (error) {
      return { problem: fieldErrorsOf(error) ?? String(error) };
    }
  };

  it.each(allOperations.map((op) => [op.path, op] as const))(
    '%s: agrees with validate on every sample of every parameter',
    async (_path, op) => {
      const queries = [
        {},
        { unknown_name: '1' },
        ...Object.keys(op.params).flatMap((name) => SAMPLES.map((value) => ({ [name]: value }))),
        ...Object.keys(op.params).map((name) => ({ [name]: ['1', '2'] })),
      ];
      for (const query of queries) {
        expect(await outcome(() => op.validate.now({ ...query }))).toEqual(await outcome(() => op.validate({ ...query })));
      }
    },
  );

  it('gives the values at once for a valid query, throws at once for an unknown name, and waits only to word a refused value', () => {
    const riders = allOperations.find((op) => op.path === '/riders')!;
    expect(riders.validate.now({ rider_id: '101' })).toEqual({ rider_id: '101' });
    expect(() => riders.validate.now({ rider_idd: '101' })).toThrow(/is not a known parameter/);
    const refused = riders.validate.now({ rider_id: 'x' });
    expect(refused).toBeInstanceOf(Promise);
    return expect(refused).rejects.toMatchObject({ status: 400 });
  });
});
