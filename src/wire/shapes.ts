// Every JSON object of the contract (SPEC.md, with DECISIONS.md's readings), key by key: the one
// place where the keys are spelled, odd spellings included ('Assigne Name', '3pl_name', spaces and
// capitals). Each value's SQL is written over the aliases of its resource's query, named above each
// shape; src/queries builds the statements from these, src/api/v2/schemas.ts publishes the schemas.
import { REPLACEMENT_TYPES } from '../filters/common';
import {
  assignMethod,
  bigint,
  dayFirst,
  datetime,
  defineShape,
  field,
  integerText,
  jsonObject,
  listOf,
  objectOf,
  orNull,
  passed,
  text,
} from './shape';

// ---------------------------------------------------------------------------------------------
// /patrollerchecks: pc = patrol_checks, r = riders, c = companies.

/** Aliases: i = patrol_check_items, a = assignments, p = products, v = product_variations, cat = product_categories. */
export const ReportedItem = defineShape('ReportedItem', 'A gear item reported in a patrol check.', {
  imageUrl: text('i.image_url', 'Address of the photo taken in the check.'),
  gearName: text(`p.name || ' - ' || v.name`, 'Product and variation name, "<product> - <variation>".'),
  gearBaseName: text('p.name', 'Product name.'),
  gearVariationName: text('v.name', 'Variation name.'),
  gearId: integerText('p.id::text', 'Product ID, as text.'),
  variationId: integerText('v.id::text', 'Variation ID, as text.'),
  gearAssignedOn: dayFirst('a.assigned_at', 'The day the item was assigned.'),
  eligibleForExchange: dayFirst("a.assigned_at + p.exchange_after_days * interval '1 day'", 'The first day the item may be exchanged.'),
  itemStatus: text('i.status', 'Condition of the item as reported (open set).'),
  categoryId: field('p.category_id', { type: 'integer', format: 'int32', description: 'Product category ID.' }),
  categoryName: text('cat.name', 'Product category name.'),
});

/** Kept as JSON text per check by triggers (migration 004, which spells these keys in its SQL). */
export const QuestionerAnswer = defineShape('QuestionerAnswer', 'An answer given in a patrol check.', {
  question: text(undefined, 'The question text.'),
  answer: field(undefined, {
    description: 'The answer: one text, several texts (multiple choice), or null (e.g. a photo question).',
    anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }, { type: 'null' }],
  }),
  imageUrl: orNull(text(undefined, 'Address of a photo given as the answer, or null.')),
  score: orNull(integerText(undefined, 'Score of the answer, as text holding a signed integer, or null.')),
  category: text(undefined, 'Category of the question.'),
});

export const FakeIdNote = defineShape(
  'FakeIdNote',
  'Note about a suspected fake ID; always both keys: {"note": null, "images": []} when nothing was noted.',
  {
    note: orNull(text('pc.fake_id_note', 'The note, or null.')),
    images: field('to_json(pc.fake_id_images)', {
      type: 'array',
      items: text(undefined, 'Image address.').schema,
      description: 'Image addresses; may be empty.',
    }),
  },
);

/** The reported items of check `pc`, in their order. */
export const reportedItemsOfCheck = `COALESCE((
  SELECT json_agg(${jsonObject(ReportedItem)} ORDER BY i.position)
  FROM patrol_check_items i
  JOIN assignments a ON a.id = i.assignment_id
  JOIN products p ON p.id = a.product_id
  JOIN product_variations v ON v.id = a.variation_id
  JOIN product_categories cat ON cat.id = p.category_id
  WHERE i.check_id = pc.id), '[]'::json)`;

/** The answers of check `pc`, kept ready by triggers (migration 004): no join with the questions here. */
export const questionerOfCheck = `COALESCE((SELECT pcq.doc FROM patrol_check_questioners pcq WHERE pcq.check_id = pc.id), '[]'::json)`;

export const PatrolCheck = defineShape('PatrolCheck', 'A patrol check of a rider.', {
  ID: bigint('pc.id', 'ID of the patrol check.'),
  Rider_ID: bigint('pc.rider_id', 'ID of the rider.'),
  Rider_name: text('r.name', 'Name of the rider.'),
  '3PL': text('c.name', 'Name of the third-party logistics company (free text).'),
  Tpatroller_ID: bigint('pc.patroller_id', 'ID of the patroller.'),
  Check_date: datetime('pc.checked_at', 'When the check was performed.'),
  ID_validation: passed('pc.id_valid', 'ID validation'),
  License_plate: passed('pc.plate_valid', 'License plate validation'),
  Reported_item: listOf(ReportedItem, reportedItemsOfCheck, 'Reported gear items; may be empty.'),
  Questioner: listOf(QuestionerAnswer, questionerOfCheck, 'Answers to the questionnaire; may be empty.'),
  Sticker_validation: passed('pc.sticker_valid', 'Sticker validation'),
  Fake_ID_note: objectOf(FakeIdNote, jsonObject(FakeIdNote)),
});

// ---------------------------------------------------------------------------------------------
// /questioner: q = questions.

/** Aliases: qa = question_answers. */
export const QuestionAnswer = defineShape('QuestionAnswer', 'A possible answer to a question.', {
  jump: text('qa.jump', "The question to go to next when this answer is chosen; '' means the next one."),
  name: text('qa.name', 'The answer.'),
  skip: field('to_json(qa.skip)', { type: 'array', items: { type: 'string' }, description: 'Questions not asked after this answer.' }),
  score: integerText('qa.score::text', 'Score of the answer, as text holding an integer.'),
  name_ar: text('qa.name_ar', 'The answer in Arabic.'),
});

export const Question = defineShape('Question', 'A question of the patrol questionnaire.', {
  question_id: bigint('q.id', 'ID of the question.'),
  question: text('q.text', 'The question text.'),
  question_type: text('q.question_type', 'For example MULTIPLE_CHOICE:SINGLE (open set).'),
  answers: listOf(
    QuestionAnswer,
    `COALESCE((
        SELECT json_agg(${jsonObject(QuestionAnswer)} ORDER BY qa.position)
        FROM question_answers qa WHERE qa.question_id = q.id), '[]'::json)`,
    'Possible answers, in their order; may be empty.',
  ),
});

// ---------------------------------------------------------------------------------------------
// /riders and /assign-list: a = assignments, r = riders, c = companies, p = products,
// v = product_variations, u = app_users (who assigned).

const riderId = bigint('a.rider_id', 'ID of the rider.');
const company = text('c.name', 'Name of the third-party logistics company.');
/** The product and variation of assignment `a` (p, v), as /riders, /assign-list and /product-returns write them. */
const product = {
  'Product ID': bigint('a.product_id', 'ID of the product.'),
  'Product Name': text('p.name'),
  'Product Variation ID': bigint('a.variation_id', 'ID of the product variation.'),
  'Product Variation Name': text('v.name'),
};

export const RiderProduct = defineShape('RiderProduct', 'A product assignment of a rider.', {
  ...product,
  'Assign Date': datetime('a.assigned_at', 'When the product was assigned.'),
  'Assigne Name': text('u.name', 'Name of the user who assigned the product (the key is spelled this way).'),
  'Manual Assign or Physical Assign': assignMethod('a.assign_method'),
  'Returned at': orNull(datetime('a.deleted_at', 'When the product was returned; null while not returned.')),
});

/** Grouped by rider: one object per rider with its matching assignments. */
export const RiderWithEquipment = defineShape('RiderWithEquipment', 'A rider with the assignments that match the filters.', {
  'Rider ID': bigint('r.id', 'ID of the rider.'),
  '3PL': company,
  Products: listOf(
    RiderProduct,
    `json_agg(${jsonObject(RiderProduct)} ORDER BY a.assigned_at, a.id)`,
    'Matching assignments, returned ones included, by assign date then id.',
    1,
  ),
});

export const Assignment = defineShape('Assignment', 'An assignment of a product to a rider, returned or not.', {
  'Rider ID': riderId,
  '3PL': company,
  ...product,
  'Assign Date': RiderProduct.fields['Assign Date'],
  'Assignee Name': text('u.name', 'Name of the user who assigned the product.'),
  'Assign Type': assignMethod('a.assign_method'),
});

// ---------------------------------------------------------------------------------------------
// /product-exchanges: e = product_exchanges, with the rider, 3PL and items of the assignments exchanged
// kept on it (migration 011), c = companies, op/ov and np/nv = the old and new products and variations.

/** Why a product was replaced (DECISIONS.md: the key is 'Replacement Type', as in SPEC's examples). */
export const ProductExchange = defineShape('ProductExchange', 'An exchange of one assigned product for another.', {
  'Rider ID': bigint('e.rider_id', 'ID of the rider.'),
  '3PL': company,
  'Old Product ID': bigint('e.old_product_id', 'ID of the product given back.'),
  'Old Product Name': text('op.name'),
  'Old Product Variation ID': bigint('e.old_variation_id', 'ID of the variation given back.'),
  'Old Product Variation Name': text('ov.name'),
  'New Product ID': bigint('e.new_product_id', 'ID of the product handed out.'),
  'New Product Name': text('np.name'),
  'New Product Variation ID': bigint('e.new_variation_id', 'ID of the variation handed out.'),
  'New Product Variation Name': text('nv.name'),
  'Exchange Date': datetime('e.exchanged_at', 'When the exchange happened.'),
  'Exchange Type': text('e.exchange_type', 'Kind of exchange (free text, open set).'),
  'Replacement Type': field('e.replacement_type', {
    type: 'string',
    enum: [...REPLACEMENT_TYPES],
    description: 'Why the product was replaced.',
  }),
  'App User ID': bigint('e.processed_by', 'ID of the user who processed the exchange.'),
});

// ---------------------------------------------------------------------------------------------
// /product-returns: pr = product_returns, with the rider, 3PL and item of the assignment returned kept
// on it (migration 011), c = companies, p = products, v = product_variations.

export const ProductReturn = defineShape('ProductReturn', 'A return of an assigned product.', {
  'Rider ID': bigint('pr.rider_id', 'ID of the rider.'),
  '3PL': company,
  'Product ID': bigint('pr.product_id', 'ID of the product.'),
  'Product Name': text('p.name'),
  'Product Variation ID': bigint('pr.variation_id', 'ID of the product variation.'),
  'Product Variation Name': text('v.name'),
  'Return Date': datetime('pr.returned_at', 'When the product was returned.'),
  'App User ID': bigint('pr.returned_by', 'ID of the user who processed the return.'),
  'Return Condition': text('pr.condition', 'Condition of the returned product (free text, open set).'),
});

// ---------------------------------------------------------------------------------------------
// /rider-equipment-list, built as JSON text (see jsonObjectAsText). Kept ready by triggers too
// (migration 006, which spells these keys in its SQL); the tests hold the two byte for byte equal.

/** Riders per page: the bounds of per_page and its default. */
export const RIDER_PAGE_SIZE = { min: 1, max: 1000, default: 100 } as const;

/** Aliases: a = assignments, p = products, v = product_variations. */
export const EquipmentEntry = defineShape('EquipmentEntry', 'A product assigned to a rider, still held or returned.', {
  equipment_id: bigint('a.product_id', 'ID of the product.'),
  variation_id: orNull(bigint('a.variation_id', 'ID of the product variation, or null.')),
  equipment_name: text('p.name', 'Name of the product.'),
  equipment_variation_name: orNull(text('v.name', 'Name of the variation, or null.')),
  assign_date: orNull(datetime('a.assigned_at', 'When it was assigned, or null.')),
  assign_type: orNull(
    text('a.assign_type', 'How the record came to be: assign (handed out) or exchange (handed out in an exchange); the set is open.'),
  ),
  return_date: orNull(datetime('a.deleted_at', 'When it was returned; null while assigned.')),
  active: field('a.deleted_at IS NULL', { type: 'boolean', description: 'true while assigned, false once returned.' }),
});

/** Aliases: r = riders, c = companies, co = countries; products is given by the query. */
export const RiderEquipmentEntry = defineShape('RiderEquipmentEntry', 'A rider with the equipment that matches the filters.', {
  rider_id: field('r.id::text', {
    type: 'string',
    pattern: '^[0-9]+$',
    description: 'ID of the rider, written as text (as in the contract).',
    examples: ['100001'],
  }),
  '3pl_name': text('c.name', 'Name of the third-party logistics company.'),
  country_code: field('co.code', {
    type: 'string',
    pattern: '^[A-Z]{2}$',
    description: "Country code of the rider's site.",
    examples: ['AE'],
  }),
  products: listOf(EquipmentEntry, undefined, 'Matching equipment, by assign date then id.', 1),
});

/** The Laravel paginator envelope. Aliases: t = the total; the page numbers are bound by the query. */
export const RiderEquipmentPage = defineShape(
  'RiderEquipmentPage',
  'One page of riders with their equipment (the Laravel paginator envelope).',
  {
    current_page: field('?::int', { type: 'integer', minimum: 1, description: 'The page asked for (page).' }),
    data: listOf(RiderEquipmentEntry, undefined, 'The riders of this page, by rider id; empty past the last page.'),
    total: field('t.total', { type: 'integer', minimum: 0, description: 'How many riders match, over all pages.' }),
    per_page: field('?::int', {
      type: 'integer',
      minimum: RIDER_PAGE_SIZE.min,
      maximum: RIDER_PAGE_SIZE.max,
      description: 'Riders per page (per_page).',
    }),
    last_page: field('GREATEST(1, CEIL(t.total::numeric / ?::int))::int', {
      type: 'integer',
      minimum: 1,
      description: 'The last page that holds riders (1 when none match).',
    }),
  },
);

/** Every shape, for the OpenAPI document's components. */
export const SHAPES = [
  PatrolCheck,
  ReportedItem,
  QuestionerAnswer,
  FakeIdNote,
  Question,
  QuestionAnswer,
  RiderWithEquipment,
  RiderProduct,
  Assignment,
  ProductExchange,
  ProductReturn,
  RiderEquipmentPage,
  RiderEquipmentEntry,
  EquipmentEntry,
] as const;
