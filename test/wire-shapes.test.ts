import request from 'supertest';
import { allOperations } from '../src/api/v2/operations';
import { defineShape, jsonObject, jsonObjectAsText, text, type Shape } from '../src/wire/shape';
import { SHAPES } from '../src/wire/shapes';
import { testApp, type TestApp } from './support/app';

// The wire shapes are the one place where the contract's keys are spelled. Every answer must carry
// exactly the keys of its shape, in the shape's order (integrators compare with SPEC's examples),
// nested objects included.

let t: TestApp;
beforeAll(() => {
  t = testApp('fixture');
});
afterAll(() => t.close());

const byName = new Map<string, Shape>(SHAPES.map((shape) => [shape.name, shape]));

/** The shape a field's schema refers to, directly or as the items of an array. */
function nestedShape(schema: Record<string, unknown>): Shape | undefined {
  const ref = (schema.$ref ?? (schema.items as Record<string, unknown> | undefined)?.$ref) as string | undefined;
  return ref ? byName.get(ref.replace('#/components/schemas/', '')) : undefined;
}

/** Checks `value` against `shape`, key order included, and returns how many objects were checked. */
function expectShape(shape: Shape, value: unknown, where: string): number {
  expect({ where, keys: Object.keys(value as object) }).toEqual({ where, keys: Object.keys(shape.fields) });
  let checked = 1;
  for (const [key, field] of Object.entries(shape.fields)) {
    const nested = nestedShape(field.schema);
    const inner = (value as Record<string, unknown>)[key];
    if (!nested || inner === null) continue;
    for (const [i, item] of (Array.isArray(inner) ? inner : [inner]).entries())
      checked += expectShape(nested, item, `${where}.${key}[${i}]`);
  }
  return checked;
}

describe('answers follow their wire shape key by key, in order', () => {
  it.each(allOperations.map((op) => [op.path, op] as const))('%s', async (path, op) => {
    const res = await request(t.app).get(`/v2${path}`).expect(200);
    expect(res.body.length).toBeGreaterThan(0);
    let checked = 0;
    for (const [i, element] of (res.body as unknown[]).entries()) checked += expectShape(op.shape, element, `${path}[${i}]`);
    // Where the shape nests others, they were reached too, not only the top level.
    const nests = Object.values(op.shape.fields).some((field) => nestedShape(field.schema));
    if (nests) expect(checked).toBeGreaterThan(res.body.length);
    else expect(checked).toBe(res.body.length);
  });
});

describe('the SQL built from a shape', () => {
  const Sample = defineShape('Sample', 'A sample.', {
    "it's": text(`'quoted'::text`, 'A key with a quote.'),
    plain: text('x.plain', 'A column.'),
    given: text(undefined, 'Given where the object is built.'),
  });

  it('writes each key once, quoted for SQL, in the shape order', () => {
    expect(jsonObject(Sample, { given: 'y.given' }).replace(/\s+/g, ' ')).toBe(
      "json_build_object( 'it''s', 'quoted'::text, 'plain', x.plain, 'given', y.given)",
    );
  });

  it('refuses to build an object whose value has no SQL', () => {
    expect(() => jsonObject(Sample)).toThrow(/Sample.given has no SQL/);
  });

  it('gives the same JSON text through concat() as json_build_object does', async () => {
    const built = jsonObject(Sample, { given: 'NULL::text' }).replace(/x\.plain/g, `'p"q'::text`);
    const asText = jsonObjectAsText(Sample, { overrides: { given: 'NULL::text', plain: `'p"q'::text` } });
    const { rows } = await t.pool.query<{ a: string; b: string }>(`SELECT (${built})::text AS a, ${asText} AS b`);
    expect(rows[0].b).toBe(rows[0].a);
    expect(JSON.parse(rows[0].a)).toEqual({ "it's": 'quoted', plain: 'p"q', given: null });
  });

  it('publishes the exact-keys schema: every key required, no other key allowed', () => {
    expect(Sample.schema).toMatchObject({ type: 'object', required: ["it's", 'plain', 'given'], additionalProperties: false });
  });
});
