// The operation registry (src/api/v2/operations.ts) is the one list of operations: the docs' table,
// the docs' count and the bench's scenarios follow it, so a new operation shows where it is missing.
import fs from 'node:fs';
import path from 'node:path';
import { allOperations } from '../src/api/v2/operations';
import { loadScenarios } from '../bench/scenarios';

const root = path.join(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

it("docs/API.md's table names every operation, in the registry's order, with exactly its parameters", () => {
  const rows = read('docs/API.md')
    .split('\n')
    .filter((line) => line.startsWith('| `GET /v2/'))
    .map((line) => {
      const [operation, , parameters] = line.slice(2, -2).split(' | ');
      return {
        path: operation.replace(/^`GET \/v2/, '').replace(/`$/, ''),
        params: [...parameters.matchAll(/`([^`]+)`/g)].map((match) => match[1]).sort(),
      };
    });
  expect(rows).toEqual(allOperations.map((op) => ({ path: op.path, params: Object.keys(op.params).sort() })));
});

it('says how many operations there are where the docs count them: the contract and API.md only', () => {
  const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
  const files = [
    'README.md',
    ...fs
      .readdirSync(path.join(__dirname, '..', 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const counted = [...files, 'src/api/v2/operations.ts', 'src/server.ts'].flatMap((file) =>
    [...read(file).matchAll(/\b(\w+) (?:GET |read-only )?operations\b/g)]
      .map((match) => match[1].toLowerCase())
      .filter((word) => words.includes(word))
      .map((word) => [file, word]),
  );
  // The contract and the API's first lines say it; everywhere else (README too) says "the operations".
  expect([...new Set(counted.map(([file]) => file))].sort()).toEqual(['docs/API.md', 'docs/SPEC.md']);
  for (const [file, word] of counted) expect([file, word]).toEqual([file, words[allOperations.length]]);
});

it('gives every operation a load scenario in the bench', () => {
  const range = { min: 1, max: 2 };
  const scenarios = loadScenarios({ riders: range, countries: range }, { last: 1, activeLast: 1, company: 'x', companyLast: 1 });
  const measured = new Set(scenarios.filter((s) => s.group === 'rider').map((s) => s.path));
  expect([...measured].sort()).toEqual(allOperations.map((op) => op.path).sort());
});
