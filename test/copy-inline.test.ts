import { inlineParameters } from '../src/db/copy';
import { testApp } from './support/app';

// COPY takes no bind parameters: the statements run as COPY carry their values as literals. Written
// in, each value must select what it selects as a bound parameter.
const t = testApp('fixture');
afterAll(() => t.close());

describe('a statement’s values written in as literals', () => {
  const statement = {
    text: 'SELECT $1::text AS a, $2::bigint AS b, $3::boolean AS c, $4::date AS d, ($5::text IS NULL) AS e, $6::numeric AS f',
    values: ["O'Brien; DROP TABLE riders; --", 42, false, null, null, 1.5],
  };

  it('selects the rows the bound statement selects (quotes, numbers, booleans, NULL)', async () => {
    const bound = await t.pool.query({
      text: statement.text,
      values: statement.values.map((v) => (typeof v === 'number' ? String(v) : v)),
    });
    const inlined = await t.pool.query(inlineParameters(statement));
    expect(inlined.rows).toEqual(bound.rows);
    expect(inlined.rows[0]).toEqual({ a: "O'Brien; DROP TABLE riders; --", b: '42', c: false, d: null, e: true, f: '1.5' });
  });

  it('refuses a value it cannot write as a literal', () => {
    expect(() => inlineParameters({ text: 'SELECT $1', values: [{ a: 1 }] })).toThrow(/cannot inline a parameter of type object/);
  });
});
