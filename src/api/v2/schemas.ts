// The wire shapes of SPEC.md (with DECISIONS.md's answers) as JSON Schema 2020-12 data, written once.
// The OpenAPI document publishes them and the tests hold every real response to them, so a query
// that renames a key, drops one or changes a format fails the tests until this file says so too.
import { REPLACEMENT_TYPES } from '../../queries/product-exchanges';
import { params as riderEquipmentParams } from '../../queries/rider-equipment';
import type { operations } from './router';

export type JsonSchema = { [keyword: string]: unknown };

// Within this file names are plain strings (a typed name would make `schemas` refer to itself);
// the OpenAPI validator in the tests rejects a reference to a name that does not exist.
const refTo = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** An object with exactly these keys, every one always present (a value may still be null). */
function exact(description: string, properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', description, properties, required: Object.keys(properties), additionalProperties: false };
}

const orNull = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type, 'null'] });

const text = (description?: string): JsonSchema => ({ type: 'string', ...(description && { description }) });

// pg hands bigint columns to PostgreSQL's JSON as exact digits; JavaScript's JSON.parse rounds past 2^53.
const bigint = (description: string): JsonSchema => ({
  type: 'integer',
  format: 'int64',
  description: `${description} A bigint written as an exact JSON number: ids past 2^53 need a JSON parser that keeps big integers.`,
});

const datetime = (description: string): JsonSchema => ({
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
  description: `${description} Written YYYY-MM-DD HH:MM:SS in the service's time zone (TIME_ZONE, default UTC).`,
  examples: ['2024-05-01 23:59:59'],
});

const dayFirst = (description: string): JsonSchema => ({
  type: 'string',
  pattern: '^\\d{2}-\\d{2}-\\d{4}$',
  description: `${description} Written DD-MM-YYYY.`,
  examples: ['01-05-2024'],
});

const integerText = (description: string): JsonSchema => ({ type: 'string', pattern: '^-?[0-9]+$', description });

const passed = (description: string): JsonSchema => ({ type: 'integer', enum: [1, 0], description: `${description}: 1 passed, 0 failed.` });

const assignMethod: JsonSchema = {
  type: 'string',
  enum: ['Manual', 'Physical'],
  description: 'How the product was assigned: assign_type 0 is Manual, 1 is Physical.',
};

const listOf = (name: string, description: string, minItems?: number): JsonSchema => ({
  type: 'array',
  items: refTo(name),
  description,
  ...(minItems && { minItems }),
});

const problemFields = (status: string): Record<string, JsonSchema> => ({
  type: text('A URI reference naming the kind of problem: /problems/<name>, or about:blank.'),
  title: text('A short summary of the kind of problem.'),
  status: { type: 'integer', description: `The HTTP status (${status}).` },
  detail: text('What went wrong with this request, in words.'),
});

const perPage = riderEquipmentParams.per_page;

export const schemas = {
  PatrolCheck: exact('A patrol check of a rider.', {
    ID: bigint('ID of the patrol check.'),
    Rider_ID: bigint('ID of the rider.'),
    Rider_name: text('Name of the rider.'),
    '3PL': text('Name of the third-party logistics company (free text).'),
    Tpatroller_ID: bigint('ID of the patroller.'),
    Check_date: datetime('When the check was performed.'),
    ID_validation: passed('ID validation'),
    License_plate: passed('License plate validation'),
    Reported_item: listOf('ReportedItem', 'Reported gear items; may be empty.'),
    Questioner: listOf('QuestionerAnswer', 'Answers to the questionnaire; may be empty.'),
    Sticker_validation: passed('Sticker validation'),
    Fake_ID_note: refTo('FakeIdNote'),
  }),
  ReportedItem: exact('A gear item reported in a patrol check.', {
    imageUrl: text('Address of the photo taken in the check.'),
    gearName: text('Product and variation name, "<product> - <variation>".'),
    gearBaseName: text('Product name.'),
    gearVariationName: text('Variation name.'),
    gearId: integerText('Product ID, as text.'),
    variationId: integerText('Variation ID, as text.'),
    gearAssignedOn: dayFirst('The day the item was assigned.'),
    eligibleForExchange: dayFirst('The first day the item may be exchanged.'),
    itemStatus: text('Condition of the item as reported (open set).'),
    categoryId: { type: 'integer', format: 'int32', description: 'Product category ID.' },
    categoryName: text('Product category name.'),
  }),
  QuestionerAnswer: exact('An answer given in a patrol check.', {
    question: text('The question text.'),
    answer: {
      description: 'The answer: one text, several texts (multiple choice), or null (e.g. a photo question).',
      anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }, { type: 'null' }],
    },
    imageUrl: orNull(text('Address of a photo given as the answer, or null.')),
    score: orNull(integerText('Score of the answer, as text holding a signed integer, or null.')),
    category: text('Category of the question.'),
  }),
  FakeIdNote: exact('Note about a suspected fake ID; always both keys: {"note": null, "images": []} when nothing was noted.', {
    note: orNull(text('The note, or null.')),
    images: { type: 'array', items: text('Image address.'), description: 'Image addresses; may be empty.' },
  }),
  Question: exact('A question of the patrol questionnaire.', {
    question_id: bigint('ID of the question.'),
    question: text('The question text.'),
    question_type: text('For example MULTIPLE_CHOICE:SINGLE (open set).'),
    answers: listOf('QuestionAnswer', 'Possible answers, in their order; may be empty.'),
  }),
  QuestionAnswer: exact('A possible answer to a question.', {
    jump: text("The question to go to next when this answer is chosen; '' means the next one."),
    name: text('The answer.'),
    skip: { type: 'array', items: { type: 'string' }, description: 'Questions not asked after this answer.' },
    score: integerText('Score of the answer, as text holding an integer.'),
    name_ar: text('The answer in Arabic.'),
  }),
  RiderWithEquipment: exact('A rider with the assignments that match the filters.', {
    'Rider ID': bigint('ID of the rider.'),
    '3PL': text('Name of the third-party logistics company.'),
    Products: listOf('RiderProduct', 'Matching assignments, returned ones included, by assign date then id.', 1),
  }),
  RiderProduct: exact('A product assignment of a rider.', {
    'Product ID': bigint('ID of the product.'),
    'Product Name': text(),
    'Product Variation ID': bigint('ID of the product variation.'),
    'Product Variation Name': text(),
    'Assign Date': datetime('When the product was assigned.'),
    'Assigne Name': text('Name of the user who assigned the product (the key is spelled this way).'),
    'Manual Assign or Physical Assign': assignMethod,
    'Returned at': orNull(datetime('When the product was returned; null while not returned.')),
  }),
  Assignment: exact('An assignment of a product to a rider, returned or not.', {
    'Rider ID': bigint('ID of the rider.'),
    '3PL': text('Name of the third-party logistics company.'),
    'Product ID': bigint('ID of the product.'),
    'Product Name': text(),
    'Product Variation ID': bigint('ID of the product variation.'),
    'Product Variation Name': text(),
    'Assign Date': datetime('When the product was assigned.'),
    'Assignee Name': text('Name of the user who assigned the product.'),
    'Assign Type': assignMethod,
  }),
  ProductExchange: exact('An exchange of one assigned product for another.', {
    'Rider ID': bigint('ID of the rider.'),
    '3PL': text('Name of the third-party logistics company.'),
    'Old Product ID': bigint('ID of the product given back.'),
    'Old Product Name': text(),
    'Old Product Variation ID': bigint('ID of the variation given back.'),
    'Old Product Variation Name': text(),
    'New Product ID': bigint('ID of the product handed out.'),
    'New Product Name': text(),
    'New Product Variation ID': bigint('ID of the variation handed out.'),
    'New Product Variation Name': text(),
    'Exchange Date': datetime('When the exchange happened.'),
    'Exchange Type': text('Kind of exchange (free text, open set).'),
    'Replacement Type': { type: 'string', enum: [...REPLACEMENT_TYPES], description: 'Why the product was replaced.' },
    'App User ID': bigint('ID of the user who processed the exchange.'),
  }),
  ProductReturn: exact('A return of an assigned product.', {
    'Rider ID': bigint('ID of the rider.'),
    '3PL': text('Name of the third-party logistics company.'),
    'Product ID': bigint('ID of the product.'),
    'Product Name': text(),
    'Product Variation ID': bigint('ID of the product variation.'),
    'Product Variation Name': text(),
    'Return Date': datetime('When the product was returned.'),
    'App User ID': bigint('ID of the user who processed the return.'),
    'Return Condition': text('Condition of the returned product (free text, open set).'),
  }),
  RiderEquipmentPage: exact('One page of riders with their equipment (the Laravel paginator envelope).', {
    current_page: { type: 'integer', minimum: 1, description: 'The page asked for (page).' },
    data: listOf('RiderEquipmentEntry', 'The riders of this page, by rider id; empty past the last page.'),
    total: { type: 'integer', minimum: 0, description: 'How many riders match, over all pages.' },
    per_page: { type: 'integer', minimum: perPage.min, maximum: perPage.max, description: 'Riders per page (per_page).' },
    last_page: { type: 'integer', minimum: 1, description: 'The last page that holds riders (1 when none match).' },
  }),
  RiderEquipmentEntry: exact('A rider with the equipment that matches the filters.', {
    rider_id: { type: 'string', pattern: '^[0-9]+$', description: 'ID of the rider, written as text (as in the contract).', examples: ['100001'] },
    '3pl_name': text('Name of the third-party logistics company.'),
    country_code: { type: 'string', pattern: '^[A-Z]{2}$', description: "Country code of the rider's site.", examples: ['AE'] },
    products: listOf('EquipmentEntry', 'Matching equipment, by assign date then id.', 1),
  }),
  EquipmentEntry: exact('A product assigned to a rider, still held or returned.', {
    equipment_id: bigint('ID of the product.'),
    variation_id: orNull(bigint('ID of the product variation, or null.')),
    equipment_name: text('Name of the product.'),
    equipment_variation_name: orNull(text('Name of the variation, or null.')),
    assign_date: orNull(datetime('When it was assigned, or null.')),
    assign_type: orNull(text('How the record came to be: assign (handed out) or exchange (handed out in an exchange); the set is open.')),
    return_date: orNull(datetime('When it was returned; null while assigned.')),
    active: { type: 'boolean', description: 'true while assigned, false once returned.' },
  }),
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

export type SchemaName = keyof typeof schemas;

/** A reference to one of the named shapes, as the OpenAPI document holds them. */
export const ref = (name: SchemaName): JsonSchema => refTo(name);

/** The body of each operation's 200 answer: a JSON array, as SPEC's common rules say. */
export const okBodies: Record<keyof typeof operations, JsonSchema> = {
  '/patrollerchecks': listOf('PatrolCheck', 'Patrol checks, by ID.'),
  '/questioner': listOf('Question', 'Questions, by question_id.'),
  '/riders': listOf('RiderWithEquipment', 'Riders, by rider id.'),
  '/assign-list': listOf('Assignment', 'Assignments, by assign date then id.'),
  '/product-exchanges': listOf('ProductExchange', 'Exchanges, by exchange date then id.'),
  '/product-returns': listOf('ProductReturn', 'Returns, by return date then id.'),
  '/rider-equipment-list': { ...listOf('RiderEquipmentPage', 'An array holding the one page asked for.', 1), maxItems: 1 },
};
