// A valid query passes on each rule's plain check alone; express-validator runs only for a refused value,
// to word its message. The two must agree on every value, for every parameter of every operation and list.
import { allOperations } from '../src/api/v2/operations';
import { allLists } from '../src/admin/lists';
import type { ParamDef } from '../src/filters/define';
import { ruleFor, type Words } from '../src/filters/validate';

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
