// The operations of the API, one object each: its path, what the reference says of it, the
// parameters it accepts, the builder of its wire rows and their shape, and whether the answer
// streams. The router serves these, the OpenAPI document describes them, the tests and the bench
// walk them. Adding an operation: a query module, a shape in src/wire/shapes.ts, an entry here.
import type { Knex } from 'knex';
import type { ParamValues, Params } from '../../filters/define';
import { queryValidator, type QueryValidator } from '../../filters/validate';
import * as assignments from '../../queries/assignments';
import * as patrolChecks from '../../queries/patrol-checks';
import * as productExchanges from '../../queries/product-exchanges';
import * as productReturns from '../../queries/product-returns';
import * as questions from '../../queries/questions';
import * as riderEquipment from '../../queries/rider-equipment';
import { arrayOf, type JsonSchema, type Shape } from '../../wire/shape';
import * as shapes from '../../wire/shapes';

export type Tag = 'Patrol checks' | 'Equipment';

export interface OperationDef<P extends Params> {
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description: string;
  params: P;
  /** The statement whose rows are the answer: one JSON text per row (see jsonColumn). */
  build: (values: ParamValues<P>) => Knex.QueryBuilder | Knex.Raw;
  /** The shape of the answer's elements. */
  shape: Shape;
  /** What the answer's array holds, in words (its order above all). */
  answer: string;
  /** The answer is an array of exactly one element (a page envelope) rather than one per row. */
  single?: boolean;
  /**
   * true for every list whose statement gives one element per row: the rows are sent as they arrive.
   * false only with `single`: the statement gives a page envelope as rows (its head, one row per
   * element, its tail) that are joined into one answer (see answerPieces in send-json.ts).
   */
  stream: boolean;
  /**
   * A filter that keeps the answer small (one rider's records, one country's questions): given it,
   * a streaming operation is read at once through a prepared statement instead.
   */
  boundedBy?: keyof P & string;
}

export interface Operation<P extends Params = Params> extends OperationDef<P> {
  validate: QueryValidator<P>;
  /** The 200 answer's body: a JSON array of the shape. */
  body: JsonSchema;
}

export function defineOperation<const P extends Params, const Path extends string>(
  def: OperationDef<P> & { path: Path },
): Operation<P> & { path: Path } {
  const body = arrayOf(def.shape, def.answer, def.single ? 1 : undefined);
  return { ...def, validate: queryValidator(def.params), body: def.single ? { ...body, maxItems: 1 } : body };
}

const list = [
  defineOperation({
    path: '/patrollerchecks',
    operationId: 'listPatrolChecks',
    tag: 'Patrol checks',
    summary: 'List patrol checks',
    description: 'Patrol checks of riders, with their reported items, questionnaire answers and fake-ID note, ordered by `ID`.',
    params: patrolChecks.params,
    build: patrolChecks.wire,
    shape: shapes.PatrolCheck,
    answer: 'Patrol checks, by ID.',
    stream: true,
    boundedBy: 'rider_id',
  }),
  defineOperation({
    path: '/questioner',
    operationId: 'listQuestions',
    tag: 'Patrol checks',
    summary: 'List the patrol questionnaire',
    description: 'Questions with their possible answers (in their order), ordered by `question_id`.',
    params: questions.params,
    build: questions.wire,
    shape: shapes.Question,
    answer: 'Questions, by question_id.',
    stream: true,
    boundedBy: 'country_id',
  }),
  defineOperation({
    path: '/riders',
    operationId: 'listRidersWithProducts',
    tag: 'Equipment',
    summary: 'List riders with their assigned products',
    description:
      'One object per rider that has at least one assignment, ordered by rider id. With filters, a rider appears when at ' +
      'least one of its assignments matches, and `Products` holds only the matching ones, by assign date then id. ' +
      'Returned assignments are included, with `Returned at` set.',
    params: assignments.riderParams,
    build: assignments.wireByRider,
    shape: shapes.RiderWithEquipment,
    answer: 'Riders, by rider id.',
    stream: true,
    boundedBy: 'rider_id',
  }),
  defineOperation({
    path: '/assign-list',
    operationId: 'listAssignments',
    tag: 'Equipment',
    summary: 'List assignments',
    description:
      'Every assignment, returned or not, ordered by assign date then id: the same records as the products of ' +
      '`/riders` and `/rider-equipment-list`, one per element.',
    params: assignments.params,
    build: assignments.wire,
    shape: shapes.Assignment,
    answer: 'Assignments, by assign date then id.',
    stream: true,
    boundedBy: 'rider_id',
  }),
  defineOperation({
    path: '/product-exchanges',
    operationId: 'listProductExchanges',
    tag: 'Equipment',
    summary: 'List product exchanges',
    description:
      'Exchanges, ordered by exchange date then id. `product_id` and `variation_id` select the product given back, ' +
      '`new_product_id` and `new_variation_id` the product handed out.',
    params: productExchanges.params,
    build: productExchanges.wire,
    shape: shapes.ProductExchange,
    answer: 'Exchanges, by exchange date then id.',
    stream: true,
    boundedBy: 'rider_id',
  }),
  defineOperation({
    path: '/product-returns',
    operationId: 'listProductReturns',
    tag: 'Equipment',
    summary: 'List product returns',
    description: 'Returns of assigned products, ordered by return date then id.',
    params: productReturns.params,
    build: productReturns.wire,
    shape: shapes.ProductReturn,
    answer: 'Returns, by return date then id.',
    stream: true,
    boundedBy: 'rider_id',
  }),
  defineOperation({
    path: '/rider-equipment-list',
    operationId: 'pageRiderEquipment',
    tag: 'Equipment',
    summary: 'Page through riders with their equipment',
    description:
      'One page of riders, ordered by rider id, each with its equipment ordered by assign date then id, in an array ' +
      'holding the page envelope. A page past the end has an empty `data` with the true `total` and `last_page`; ' +
      '`page` or `per_page` out of range is a 400, never clamped. `total` counts riders. `active=1` keeps only ' +
      'equipment still held and the riders holding some; `active=0` only returned equipment and the riders who returned some.',
    params: riderEquipment.params,
    build: riderEquipment.wirePage,
    shape: shapes.RiderEquipmentPage,
    answer: 'An array holding the one page asked for.',
    single: true,
    stream: false,
  }),
] as const;

export type OperationPath = (typeof list)[number]['path'];

/** The operations by path. */
export const operations = Object.fromEntries(list.map((op) => [op.path, op])) as {
  readonly [K in OperationPath]: Extract<(typeof list)[number], { path: K }>;
};

/** Every operation, in the reference's order. */
export const allOperations: readonly Operation[] = list as unknown as readonly Operation[];
