import crypto from 'node:crypto';
import express, { type RequestHandler } from 'express';
import type { Reader } from '../../db/pool';
import { HttpError } from '../../http/errors';
import { compilePerShape } from '../../filters/compiled';
import { requireBearer, tokenRateLimit } from '../../auth/bearer';
import type { RateLimitStores } from '../../auth/rate-limit-store';
import { clientSignal } from '../../http/client-signal';
import { inSequence } from '../../http/in-sequence';
import { tokenKey, type StreamLimit } from '../../http/stream-limit';
import type { TokenAccess, TokenCache } from '../../auth/tokens';
import { allOperations } from './operations';
import { buildOpenApiDocument } from './openapi';
import { problemHandler, type Logger } from '../../http/problem';
import { streamJsonArray } from './stream-json';
import { answerPieces, bytesQuery, sendJsonText } from './send-json';
import { queryRows } from '../../db/rows';
import type { HeaderSetter } from '../../http/security-headers';

// One prepared statement per distinct SQL text (a resource and the set of filters given): PostgreSQL
// parses it once per connection and, after a few runs, reuses a generic plan instead of planning again.
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `v2_${crypto.createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

export interface ApiAccess {
  tokens: TokenCache;
  perMinute: number;
  failuresPerMinute: number;
  /** Where the limits count: PostgreSQL, shared by every process (RATE_LIMIT_STORE). */
  stores: RateLimitStores;
}

export interface ApiDeps {
  pool: Reader;
  streamPool: Reader;
  /** Unbounded streams per token (STREAMS_PER_TOKEN). */
  streamLimit: StreamLimit;
  /** Unbounded streams of one token, and of one client address whatever its tokens, at most (DB_STREAM_POOL_MAX − 1). */
  placeCap?: StreamLimit;
  log: Logger;
  access?: ApiAccess;
  /** The security headers of every API answer (src/http/security-headers.ts, API_HEADERS). */
  headers: HeaderSetter;
  /** CORS (CORS_ORIGINS), after the headers and before the token: a preflight carries none. */
  cors?: RequestHandler;
}

/**
 * The API, mounted at /v2: an Express Router. Every request gets the API's headers and no-store, then
 * CORS, then (but for the OpenAPI document) the token and its limit, then its operation (GET and HEAD;
 * 405 for other methods), else a 404. Without `access`, the API is open: the service only allows that
 * when told to (AUTH=off). (A hand-written dispatcher stood here; measured against this Router on the
 * same answers it gained nothing: src/runtime/README.md.)
 */
export function createApiRouter({ pool, streamPool, streamLimit, placeCap, log, access, headers, cors }: ApiDeps): RequestHandler {
  const openApiDocument = buildOpenApiDocument(allOperations, { auth: Boolean(access) }); // built once: it changes only with the code
  // The token, then its limit, as one step (undefined: the API is open).
  const checks = access
    ? inSequence([
        requireBearer(access.tokens, access.failuresPerMinute, access.stores('auth-failures:')),
        tokenRateLimit(access.perMinute, access.stores('token-requests:')),
      ])
    : undefined;

  const router = express.Router();
  router.use((req, res, next) => {
    headers(req, res);
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  if (cors) router.use(cors);
  router.get('/openapi.json', (_req, res) => void res.json(openApiDocument));
  if (checks) router.use(checks);

  for (const operation of allOperations) {
    const compile = compilePerShape(operation.params, operation.build);
    // GET answers HEAD too (Express routes a HEAD to the GET of its path).
    router.get(operation.path, async (req, res) => {
      const given = operation.validate.now(req.query as Record<string, unknown>);
      // Only a refused value makes validation wait (for express-validator's messages).
      const validated = given instanceof Promise ? await given : given;
      // A token limited to one 3PL sees only that company's riders, whatever the filters say.
      // (validated is this request's own object: the company is written into it.)
      const values = validated as typeof validated & { company_id?: string };
      values.company_id = (res.locals.access as TokenAccess | undefined)?.companyId ?? undefined;
      if (req.method === 'HEAD') {
        res.status(200).type('application/json').end();
        return;
      }
      const query = compile(values);
      if (operation.stream && !(operation.boundedBy && (validated as Record<string, unknown>)[operation.boundedBy] !== undefined)) {
        const { key, what } = tokenKey(req, res);
        const stream = () => streamJsonArray(streamPool, query, res);
        // The token's own limit first (STREAMS_PER_TOKEN: the most telling refusal), then, whatever it
        // says, neither one token nor one address ever holds every place.
        if (!placeCap) return void (await streamLimit.run(key, what, stream));
        const byAddress = () => placeCap.run(`api-address:${req.ip}`, 'This address', stream);
        const capped = key === `address:${req.ip}` ? byAddress : () => placeCap.run(`api-${key}`, what, byAddress);
        await streamLimit.run(key, what, capped);
        return;
      }
      const rows = await queryRows<[Buffer]>(pool, bytesQuery(statementName(query.text), query.text, query.values), clientSignal(res));
      sendJsonText(
        res,
        answerPieces(
          operation.stream,
          rows.map((row) => row[0]),
        ),
      );
    });
    router.all(operation.path, (req) => {
      throw new HttpError(405, `${req.method} is not allowed here; use GET or HEAD.`, { headers: { Allow: 'GET, HEAD' } });
    });
  }
  router.use((req) => {
    throw new HttpError(404, `There is no operation at ${req.baseUrl}${req.path}.`);
  });
  router.use(problemHandler(log));
  return router;
}
