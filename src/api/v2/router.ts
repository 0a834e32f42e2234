import express, { type Request, type Response, type Router } from 'express';
import type { Knex } from 'knex';
import { toNative } from '../../db/knex';
import type { Pool } from '../../db/pool';
import { HttpError } from '../../http/errors';
import { queryValidator, type QueryValidator } from '../../filters/validate';
import type { ParamValues, Params } from '../../filters/define';
import * as assignments from '../../queries/assignments';
import * as patrolChecks from '../../queries/patrol-checks';
import * as productExchanges from '../../queries/product-exchanges';
import * as productReturns from '../../queries/product-returns';
import * as questions from '../../queries/questions';
import * as riderEquipment from '../../queries/rider-equipment';
import { failureRateLimit, requireBearer, tokenRateLimit } from '../../auth/bearer';
import type { TokenAccess, TokenCache } from '../../auth/tokens';
import { buildOpenApiDocument } from './openapi';
import { problemHandler, type Logger } from './problem';
import { streamJsonArray } from './stream-json';

/** The seven operations: path, accepted parameters, and the builder of their wire rows. */
export const operations = {
  '/patrollerchecks': { validate: queryValidator(patrolChecks.params), build: patrolChecks.wire, stream: true },
  '/questioner': { validate: queryValidator(questions.params), build: questions.wire, stream: true },
  '/riders': { validate: queryValidator(assignments.riderParams), build: assignments.wireByRider, stream: true },
  '/assign-list': { validate: queryValidator(assignments.params), build: assignments.wire, stream: true },
  '/product-exchanges': { validate: queryValidator(productExchanges.params), build: productExchanges.wire, stream: true },
  '/product-returns': { validate: queryValidator(productReturns.params), build: productReturns.wire, stream: true },
  '/rider-equipment-list': { validate: queryValidator(riderEquipment.params), build: riderEquipment.wirePage, stream: false },
} as const;

type Operation = {
  validate: QueryValidator<Params>;
  build: (values: ParamValues<Params>) => Knex.QueryBuilder | Knex.Raw;
  stream: boolean;
};

export interface ApiAccess {
  tokens: TokenCache;
  perMinute: number;
  failuresPerMinute: number;
}

/** Without `access`, the API is open: the service only allows that when told to (AUTH=off). */
export function createApiRouter({ pool, streamPool, log, access }: { pool: Pool; streamPool: Pool; log: Logger; access?: ApiAccess }): Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });

  const openApiDocument = buildOpenApiDocument(operations, { auth: Boolean(access) }); // built once: it changes only with the code
  router.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });

  if (access) {
    router.use(failureRateLimit(access.failuresPerMinute), requireBearer(access.tokens), tokenRateLimit(access.perMinute));
  }

  for (const [path, operation] of Object.entries(operations) as Array<[string, Operation]>) {
    router.get(path, async (req: Request, res: Response) => {
      const validated = await operation.validate(req.query as Record<string, unknown>);
      // A token limited to one 3PL sees only that company's riders, whatever the filters say.
      const values = { ...validated, company_id: (res.locals.access as TokenAccess | undefined)?.companyId ?? undefined };
      if (req.method === 'HEAD') {
        res.status(200).type('application/json').end();
        return;
      }
      const query = toNative(operation.build(values));
      if (operation.stream) {
        await streamJsonArray(streamPool, query, res);
      } else {
        const result = await pool.query({ text: query.text, values: query.values, rowMode: 'array' });
        res.type('application/json').send(result.rows[0][0]);
      }
    });
    router.all(path, (req) => {
      throw new HttpError(405, `${req.method} is not allowed here; use GET or HEAD.`, { headers: { Allow: 'GET, HEAD' } });
    });
  }

  router.use((req) => {
    throw new HttpError(404, `There is no operation at ${req.baseUrl}${req.path}.`);
  });
  router.use(problemHandler(log));
  return router;
}
