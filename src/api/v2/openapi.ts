// The OpenAPI 3.1 document served at GET /v2/openapi.json. It is generated, never written beside the
// code: parameters come from the definitions the validator runs (src/queries/*.ts), answers from the
// shapes in schemas.ts that the tests hold real responses to, and rule wording from describeRule().
import fs from 'node:fs';
import path from 'node:path';
import { MAX_BIGINT, MAX_TEXT_LENGTH, describeRule, type ParamDef, type Params } from '../../filters/define';
import { projectRoot } from '../../paths';
import { ASSIGN_METHODS } from '../../filters/common';
import type { Operation } from './operations';
import { problemRef, schemas, type JsonSchema, type ProblemName } from './schemas';

type Documented = readonly Operation[];

/** The literals the validator accepts for a boolean, in any letter case. */
const BOOLEAN_LITERALS = ['1', '0', 'true', 'false'];

/**
 * Decimal numbers 1..max, leading zeros allowed, as a regular expression: JSON Schema has no range for
 * text, and query values are text. Built digit by digit: shorter numbers, then each way to fall below max.
 */
export function wholeNumberPattern(max: bigint): string {
  const digits = max.toString();
  const anyDigits = (n: number) => (n === 0 ? '' : `[0-9]{${n}}`);
  const alternatives = digits.length > 1 ? [`[1-9][0-9]{0,${digits.length - 2}}`] : [];
  for (let i = 0; i < digits.length; i++) {
    const low = i === 0 ? 1 : 0;
    const high = Number(digits[i]) - 1;
    if (high < low) continue;
    const range = high === low ? String(low) : `[${low}-${high}]`;
    alternatives.push(`${digits.slice(0, i)}${range}${anyDigits(digits.length - i - 1)}`);
  }
  alternatives.push(digits);
  return `^0*(?:${alternatives.join('|')})$`;
}

/** A case-insensitive match of these literals, since JSON Schema patterns take no flags. */
function anyCasePattern(literals: readonly string[]): string {
  const anyCase = (literal: string) =>
    [...literal].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toUpperCase()}${c.toLowerCase()}]`)).join('');
  return `^(?:${literals.map(anyCase).join('|')})$`;
}

/** The schema of a query value as the validator reads it (query values are text: see the description). */
export function parameterSchema(def: ParamDef): JsonSchema {
  switch (def.type) {
    case 'bigint':
      return { type: 'string', pattern: wholeNumberPattern(MAX_BIGINT) };
    case 'integer':
      return { type: 'integer', minimum: def.min, maximum: def.max, default: def.default };
    case 'date': // format is only an annotation in JSON Schema 2020-12; the pattern asserts the shape
      return { type: 'string', format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
    case 'boolean':
      return { type: 'string', pattern: anyCasePattern(BOOLEAN_LITERALS) };
    case 'enum':
      return { type: 'string', enum: [...(def.values ?? [])] };
    case 'text':
      return { type: 'string', maxLength: MAX_TEXT_LENGTH, pattern: '^[^\\u0000]*$' };
  }
}

const sentence = (rule: string) => `${rule[0].toUpperCase()}${rule.slice(1)}.`;

function parameterDescription(name: string, def: ParamDef): string {
  const parts = [def.description, sentence(describeRule(def))];
  if (def.type === 'bigint') parts.push('Sent as text of digits; leading zeros are allowed (`007` is 7).');
  if (def.type === 'date') parts.push("Read as a calendar day in the service's time zone.");
  if (def.from) parts.push(`Both bounds are inclusive; a request whose \`${def.from}\` is after this day is a 400.`);
  if (def.aliasOf) parts.push(`Giving both \`${name}\` and \`${def.aliasOf}\` is a 400.`);
  if (def.default !== undefined) parts.push(`Default ${def.default}.`);
  parts.push('An empty value counts as not given.');
  return parts.join(' ');
}

function parametersOf(params: Params): JsonSchema[] {
  return Object.entries(params).map(([name, def]) => ({
    name,
    in: 'query',
    required: false,
    description: parameterDescription(name, def),
    schema: parameterSchema(def),
  }));
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const everyAnswer = { 'X-Request-Id': header('XRequestId'), 'Cache-Control': header('CacheControl') };

function problem(status: number, description: string, schema: ProblemName, extra: { type?: string; headers?: JsonSchema } = {}) {
  const pinned: JsonSchema = { status: { const: status }, ...(extra.type && { type: { const: extra.type } }) };
  return {
    description,
    headers: { ...everyAnswer, ...extra.headers },
    content: { 'application/problem+json': { schema: { type: 'object', allOf: [problemRef(schema)], properties: pinned } } },
  };
}

const problemResponses = {
  InvalidQuery: problem(
    400,
    'A bad query: an unknown, repeated or bracket-form parameter, a bad value, an alias given with its target, ' +
      'or a `*_from` after its `*_to`. `errors` names each bad parameter; nothing reaches the database.',
    'InvalidQueryProblem',
    { type: '/problems/invalid-query-parameters' },
  ),
  Unauthorized: problem(
    401,
    'No valid API token: none sent in `Authorization: Bearer <token>`, or an unknown, revoked or expired one. A token in the URL is not read.',
    'Problem',
    { headers: { 'WWW-Authenticate': header('WwwAuthenticate') } },
  ),
  NotFound: problem(404, 'No operation at this path: the answer of any path not listed here, such as a misspelt one.', 'Problem'),
  MethodNotAllowed: problem(
    405,
    'A method other than GET or HEAD (or OPTIONS from an allowed origin, see CORS_ORIGINS), on any path of this API.',
    'Problem',
    {
      headers: { Allow: header('Allow') },
    },
  ),
  TooManyRequests: problem(
    429,
    'Too many requests for this token in a minute, or too many without a valid token from this address.',
    'Problem',
    {
      headers: { 'Retry-After': header('RetryAfter'), RateLimit: header('RateLimit'), 'RateLimit-Policy': header('RateLimitPolicy') },
    },
  ),
  InternalError: problem(
    500,
    'A fault of the service. No stack trace or SQL is shown; the log has them under `request_id`.',
    'ServerProblem',
    {
      type: '/problems/internal-error',
    },
  ),
  ServiceUnavailable: problem(503, 'The database is unreachable or busy; try again after `Retry-After` seconds.', 'ServerProblem', {
    type: '/problems/service-unavailable',
    headers: { 'Retry-After': header('RetryAfter') },
  }),
};

const headers = {
  XRequestId: {
    description: "The request's id: the caller's own `X-Request-Id` when it is safe to echo, otherwise a new UUID.",
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
  },
  CacheControl: { description: 'Answers hold personal data: no cache may keep them.', required: true, schema: { const: 'no-store' } },
  RetryAfter: { description: 'Seconds to wait before trying again.', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
  Allow: { description: 'The methods this API accepts.', required: true, schema: { const: 'GET, HEAD' } },
  RateLimit: {
    description: "The token's limit, what is left of it in this window, and the seconds until the window resets.",
    schema: { type: 'string', pattern: '^limit=[0-9]+, remaining=[0-9]+, reset=[0-9]+$', examples: ['limit=600, remaining=599, reset=60'] },
  },
  RateLimitPolicy: {
    description: 'Requests allowed per window, and the window in seconds.',
    schema: { type: 'string', pattern: '^[0-9]+;w=[0-9]+$', examples: ['600;w=60'] },
  },
  WwwAuthenticate: {
    description: 'The Bearer challenge; `error="invalid_token"` when a token was sent but is not live.',
    required: true,
    schema: { type: 'string', pattern: '^Bearer realm="rider-equipment"(, error="invalid_token")?$' },
  },
};

/** Names of the parameters of a type, over every operation, for the rules in the introduction. */
function namesOfType(ops: Documented, type: ParamDef['type']): Array<[string, ParamDef]> {
  const all = ops.flatMap((op) => Object.entries(op.params));
  return [...new Map(all.filter(([, def]) => def.type === type)).entries()];
}

function introduction(ops: Documented, auth: boolean): string {
  const code = (names: Array<[string, unknown]>) => names.map(([name]) => `\`${name}\``).join(', ');
  const streamed = ops.filter((op) => op.stream).map((op): [string, unknown] => [op.path, op]);
  const closedSets = namesOfType(ops, 'enum')
    .map(([name, def]) => `\`${name}\` is one of ${def.values!.map((v) => `\`${v}\``).join(', ')}`)
    .join('; ');
  return [
    'Read-only JSON API over riders, their equipment, its returns and exchanges, and patrol checks. Every operation ' +
      'is a GET that answers a JSON array; HEAD checks the query the same way and answers without a body.',
    '**Parameters.** Every parameter is optional; with none, an operation answers all its records. Names are ' +
      'case-sensitive. A known parameter with an empty value (`?rider_id=`) counts as not given. An unknown name is a ' +
      '400 that lists the accepted ones, and a repeated name (`?rider_id=1&rider_id=2`) or a bracket form ' +
      '(`rider_id[]=1`, `rider_id[$gt]=1`) is a 400: a typo never silently answers every record. Query values are ' +
      'text on the wire; each schema says which texts are accepted.',
    `- **Ids** are whole numbers from 1 to ${MAX_BIGINT}, digits only (\`007\` is 7); \`0\`, \`-1\`, \`+1\`, \`1.5\`, \`1e3\` and larger numbers are a 400.`,
    "- **Dates** are `YYYY-MM-DD` and must be real days (`2024-02-30` is a 400). Both bounds of a range are inclusive by calendar day (`*_to=2024-05-01` includes all of 1 May), read in the service's time zone (`TIME_ZONE`, default UTC); a `*_from` after its `*_to` is a 400.",
    `- **Booleans** (${code(namesOfType(ops, 'boolean'))}) are ${BOOLEAN_LITERALS.map((v) => `\`${v}\``).join(', ')}, in any letter case.`,
    `- **Text** (${code(namesOfType(ops, 'text'))}) matches exactly and case-sensitively; \`%\` and \`_\` are ordinary characters. At most ${MAX_TEXT_LENGTH} characters, no NUL.`,
    `- **Closed sets**: ${closedSets}; exactly as written, anything else is a 400.`,
    "**Answers.** Datetimes are `YYYY-MM-DD HH:MM:SS` in the service's time zone, everywhere. " +
      `${ASSIGN_METHODS.map((m) => `\`assign_type\` \`${m.value}\` is ${m.label}`).join(', ')}: answers write ` +
      `${ASSIGN_METHODS.map((m) => `\`${m.label}\``).join(' or ')}. Order is stable: checks by ` +
      '`ID`; questions by `question_id`; assignments, returns and exchanges by their date then id; riders by rider id, ' +
      "each rider's products by assign date then id. Ids are exact JSON numbers, also past 2^53 (use a JSON parser that " +
      'keeps big integers for those), except `rider_id` in `/rider-equipment-list`, which is text. Every answer carries ' +
      `\`X-Request-Id\` and \`Cache-Control: no-store\`. The answers of ${code(streamed)} are streamed as rows arrive; if ` +
      'a stream fails midway the connection is cut, so a truncated array never passes for a complete one.',
    '**Errors** are `application/problem+json` (RFC 9457): 400 for a bad query (`errors` names each parameter), 404 for ' +
      'a path with no operation, 405 for a method other than GET or HEAD (with `Allow`), 500 for a fault of ours (with ' +
      '`request_id`, never a stack trace), 503 when the database is unreachable (with `Retry-After`), 401 without a valid ' +
      'token (with `WWW-Authenticate`), 429 past a rate limit (with `Retry-After`).',
    auth
      ? '**Authentication**: every operation needs `Authorization: Bearer <token>` (the `bearerAuth` scheme). Tokens are ' +
        "made and revoked with the service's `token` command and stored hashed. A token limited to one 3PL sees only that " +
        "company's riders. This document itself is public."
      : '**Authentication** is turned off on this server (`AUTH=off`): no operation needs a token.',
  ]
    .join('\n\n')
    .replace(/\n\n- /g, '\n- '); // list items stay one list
}

function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Builds the document from the router's operations (passed in, so this module needs no runtime import
 * of the router), saying whether this server requires tokens.
 */
export function buildOpenApiDocument(ops: Documented, { auth }: { auth: boolean }): JsonSchema {
  // With tokens, every answer past the token check carries the token's limit (express-rate-limit, draft 7).
  const limited = auth ? { RateLimit: header('RateLimit'), 'RateLimit-Policy': header('RateLimitPolicy') } : {};
  const errors = {
    400: { $ref: '#/components/responses/InvalidQuery' },
    ...(auth && { 401: { $ref: '#/components/responses/Unauthorized' } }),
    404: { $ref: '#/components/responses/NotFound' },
    405: { $ref: '#/components/responses/MethodNotAllowed' },
    ...(auth && { 429: { $ref: '#/components/responses/TooManyRequests' } }),
    500: { $ref: '#/components/responses/InternalError' },
    503: { $ref: '#/components/responses/ServiceUnavailable' },
  };
  const paths = Object.fromEntries(
    ops.map((op) => {
      const streamed = op.stream ? ' The answer is streamed as rows arrive.' : '';
      const common = { tags: [op.tag], parameters: parametersOf(op.params) };
      const get = {
        operationId: op.operationId,
        ...common,
        summary: op.summary,
        description: `${op.description}${streamed} Every parameter is optional; unknown, repeated and bracket-form parameters are a 400.`,
        responses: {
          200: {
            description: 'The matching records.',
            headers: { ...everyAnswer, ...limited },
            content: { 'application/json': { schema: op.body } },
          },
          ...errors,
        },
      };
      const head = {
        operationId: `${op.operationId}Head`,
        ...common,
        summary: `Check a query of ${op.path} without an answer body`,
        description:
          "The same checks as GET (token, limit, parameters) and the same status and headers, without a body; the operation's statement is not run.",
        responses: { 200: { description: 'The query is valid; GET would answer it.', headers: { ...everyAnswer, ...limited } }, ...errors },
      };
      return [op.path, { get, head }];
    }),
  );
  return {
    openapi: '3.1.0',
    info: { title: 'Rider equipment service', version: packageVersion(), description: introduction(ops, auth) },
    ...(auth ? { security: [{ bearerAuth: [] }] } : {}),
    servers: [{ url: '/v2', description: 'This service, version 2 of the API (the paths below are appended to it).' }],
    tags: [
      { name: 'Patrol checks', description: 'Patrol checks of riders and the questionnaire they follow.' },
      { name: 'Equipment', description: 'Equipment assigned to riders, returned and exchanged.' },
    ],
    paths,
    components: {
      schemas,
      responses: problemResponses,
      headers,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            "An API token made with the service's `token` command (`npm run token -- create --name NAME`), shown once, " +
            'stored hashed, revocable, optionally limited to one 3PL and given an expiry. Sent only in this header.',
        },
      },
    },
  };
}
