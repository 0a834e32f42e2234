// The OpenAPI document's named schemas: every wire shape (src/wire/shapes.ts, from which the SQL is
// built too) and the problems the API answers with. The tests hold every real response to them.
import { SHAPES } from '../../wire/shapes';
import type { JsonSchema } from '../../wire/shape';

export type { JsonSchema };

const text = (description: string): JsonSchema => ({ type: 'string', description });

/** An object with exactly these keys, every one always present. */
function exact(description: string, properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', description, properties, required: Object.keys(properties), additionalProperties: false };
}

const problemFields = (status: string): Record<string, JsonSchema> => ({
  type: text('A URI reference naming the kind of problem: /problems/<name>, or about:blank.'),
  title: text('A short summary of the kind of problem.'),
  status: { type: 'integer', description: `The HTTP status (${status}).` },
  detail: text('What went wrong with this request, in words.'),
});

export const problemSchemas = {
  Problem: exact('An RFC 9457 problem.', problemFields('the same as the response status')),
  InvalidQueryProblem: exact('An RFC 9457 problem naming each bad parameter.', {
    ...problemFields('400'),
    errors: {
      type: 'object',
      minProperties: 1,
      description: 'Each bad parameter, with what is wrong with it.',
      additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
      examples: [{ rider_id: ['must be a whole number from 1 to 9223372036854775807'] }],
    },
  }),
  ServerProblem: exact('An RFC 9457 problem of the service itself; the log holds the cause under request_id.', {
    ...problemFields('5xx'),
    request_id: text('The id of the request (also sent as X-Request-Id); quote it when reporting the problem.'),
  }),
} satisfies Record<string, JsonSchema>;

export type ProblemName = keyof typeof problemSchemas;

/** Every named schema: the wire shapes, then the problems. */
export const schemas: Record<string, JsonSchema> = {
  ...Object.fromEntries(SHAPES.map((shape) => [shape.name, shape.schema])),
  ...problemSchemas,
};

/** A reference to a problem's schema. */
export const problemRef = (name: ProblemName): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
