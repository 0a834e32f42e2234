// The statements bench/kept-writes.ts times: the writes the systems that own the data issue (an
// assignment, a return, an exchange, a patrol check, a rider moved or renamed, a product renamed), built
// for one rider of the dataset, plus the bulk inserts, the concurrent writers' statements and what puts
// the database back after them. Ids of new rows start far above the data's (Fleet.idBase), so they never
// meet a row a writer of the data inserts, and a range of them is what a cleanup deletes.
import type pg from 'pg';
import type { Answers, Fleet, Rider } from './kept-writes-fleet';

// What the phases of bench/kept-writes.ts import from here with the statements.
export { loadFleet, type Fleet } from './kept-writes-fleet';

export interface Stmt {
  label: string;
  text: string;
  values: unknown[];
}

/** One write as a writer of the data issues it: timed statement by statement, inside a transaction that is rolled back. */
export interface WriteKind {
  kind: string;
  position: string;
  /** The tables its statements write: their user triggers are what "without" switches off. */
  tables: string[];
  /** Untimed, with the triggers on, before the timed statements (e.g. an item to give back when the rider holds none). */
  setup: Stmt[];
  timed: Stmt[];
}

/** The long-history rider's extra assignments (half of them returned) and extra checks. */
export const HISTORY = 500;

// Statements shared by the single, long-history and concurrent runs ------------------------------------

export const insertAssignment = (
  id: number,
  riderId: string,
  v: { id: string; productId: string },
  user: string,
  type = 'assign',
): Stmt => ({
  label: 'insert assignments',
  text: `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
         VALUES ($1, $2, $3, $4, now(), $5, 0, $6)`,
  values: [id, riderId, v.productId, v.id, user, type],
});

const returnAssignment = (id: string | number): Stmt => ({
  label: 'update assignments',
  text: 'UPDATE assignments SET deleted_at = now() WHERE id = $1',
  values: [id],
});

export const insertCheck = (id: number, riderId: string, patroller: string): Stmt => ({
  label: 'insert patrol_checks',
  text: `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
         VALUES ($1, $2, $3, now(), true, true, false)`,
  values: [id, riderId, patroller],
});

const ANSWER_ROWS = `SELECT c.id, t.position, t.question_id, t.answer::jsonb, t.image_url, t.score
  FROM unnest($2::smallint[], $3::bigint[], $4::text[], $5::text[], $6::int[]) AS t(position, question_id, answer, image_url, score)`;

const insertAnswers = (checkId: number, a: Answers): Stmt => ({
  label: 'insert patrol_check_answers',
  text: `INSERT INTO patrol_check_answers (check_id, position, question_id, answer, image_url, score)
         ${ANSWER_ROWS.replace('FROM unnest', 'FROM (SELECT $1::bigint AS id) c, unnest')}`,
  values: [checkId, a.positions, a.questionIds, a.answers, a.images, a.scores],
});

const insertItems = (checkId: number, riderId: string): Stmt => ({
  label: 'insert patrol_check_items',
  text: `INSERT INTO patrol_check_items (check_id, position, assignment_id, status, image_url)
         SELECT c.id, n, a.id, 'Good', 'https://cdn.example.com/patrol/' || c.id || '/item-' || n || '.jpg'
           FROM (SELECT $1::bigint AS id) c,
                LATERAL (SELECT id, row_number() OVER (ORDER BY id) AS n FROM assignments WHERE rider_id = $2 AND deleted_at IS NULL) a`,
  values: [checkId, riderId],
});

// The write kinds of the single run -----------------------------------------------------------------------

/** Consecutive fresh ids from a base; the single run's transactions are rolled back, so each reuses its kind's. */
export class Ids {
  constructor(private next: number) {}
  take(): number {
    return this.next++;
  }
}

/** The rider's held item to give back, and the untimed insert of one when it holds none. */
function heldItem(fleet: Fleet, r: Rider, ids: Ids): { held: NonNullable<Rider['held']>; setup: Stmt[] } {
  if (r.held) return { held: r.held, setup: [] };
  const v = fleet.variations[0];
  const id = ids.take();
  return { held: { id: String(id), productId: v.productId, variationId: v.id }, setup: [insertAssignment(id, r.id, v, fleet.appUser)] };
}

const otherCompany = (fleet: Fleet, r: Rider) => fleet.companies.find((c) => c.id !== r.companyId)!.id;

/** The kinds written per rider, by name. */
export const RIDER_KINDS: Record<string, (fleet: Fleet, r: Rider, ids: Ids) => Omit<WriteKind, 'kind' | 'position'>> = {
  assign: (fleet, r, ids) => ({
    tables: ['assignments'],
    setup: [],
    timed: [insertAssignment(ids.take(), r.id, fleet.variations[0], fleet.appUser)],
  }),
  return: (fleet, r, ids) => {
    const { held, setup } = heldItem(fleet, r, ids);
    const insertReturn: Stmt = {
      label: 'insert product_returns',
      text: `INSERT INTO product_returns (id, assignment_id, returned_at, returned_by, condition) VALUES ($1, $2, now(), $3, 'Good')`,
      values: [ids.take(), held.id, fleet.appUser],
    };
    return { tables: ['assignments', 'product_returns'], setup, timed: [returnAssignment(held.id), insertReturn] };
  },
  exchange: (fleet, r, ids) => {
    const { held, setup } = heldItem(fleet, r, ids);
    const newId = ids.take();
    const insertExchange: Stmt = {
      label: 'insert product_exchanges',
      text: `INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by)
             VALUES ($1, $2, $3, now(), 'Damaged', 'Lost', $4)`,
      values: [ids.take(), held.id, newId, fleet.appUser],
    };
    const handOut = insertAssignment(newId, r.id, { id: held.variationId, productId: held.productId }, fleet.appUser, 'exchange');
    return { tables: ['assignments', 'product_exchanges'], setup, timed: [returnAssignment(held.id), handOut, insertExchange] };
  },
  check: (fleet, r, ids) => {
    const checkId = ids.take();
    const answers = fleet.answers.get(r.countryId);
    const timed = [
      insertCheck(checkId, r.id, fleet.patroller),
      ...(answers ? [insertAnswers(checkId, answers)] : []),
      insertItems(checkId, r.id),
    ];
    return { tables: ['patrol_checks', 'patrol_check_answers', 'patrol_check_items'], setup: [], timed };
  },
  move: (fleet, r) => ({
    tables: ['riders'],
    setup: [],
    timed: [{ label: 'update riders', text: 'UPDATE riders SET company_id = $2 WHERE id = $1', values: [r.id, otherCompany(fleet, r)] }],
  }),
  'rename-rider': (_fleet, r) => ({
    tables: ['riders'],
    setup: [],
    timed: [{ label: 'update riders', text: `UPDATE riders SET name = name || ' x' WHERE id = $1`, values: [r.id] }],
  }),
};

/** The kinds that write the catalogue, not a rider: once each. */
export function catalogueKinds(fleet: Fleet): WriteKind[] {
  const rename = (kind: string, table: string, id: string): WriteKind => ({
    kind,
    position: 'fleet',
    tables: [table],
    setup: [],
    timed: [{ label: `update ${table}`, text: `UPDATE ${table} SET name = name || ' x' WHERE id = $1`, values: [id] }],
  });
  return [rename('rename-product', 'products', fleet.topProduct), rename('rename-variation', 'product_variations', fleet.topVariation)];
}

export const HISTORY_KINDS = ['assign', 'return', 'check', 'move'];

/** The last rider's long history: HISTORY assignments over as many days (every other one returned an hour later) and HISTORY checks. */
export function historySetup(fleet: Fleet, r: Rider, firstId: number): Stmt[] {
  return [
    {
      label: 'history assignments',
      text: `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type, deleted_at)
             SELECT $1::bigint + g, $2, ($3::bigint[])[1 + g % cardinality($3::bigint[])], ($4::bigint[])[1 + g % cardinality($4::bigint[])],
                    t.at, $5, g % 2, 'assign', CASE WHEN g % 2 = 0 THEN t.at + interval '1 hour' END
               FROM generate_series(1, ${HISTORY}) g, LATERAL (SELECT now() - interval '1 day' * (${HISTORY + 1} - g) AS at) t`,
      values: [firstId, r.id, fleet.variations.map((v) => v.productId), fleet.variations.map((v) => v.id), fleet.appUser],
    },
    {
      label: 'history checks',
      text: `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
             SELECT $1::bigint + g, $2, $3, now() - interval '1 day' * (${HISTORY + 1} - g) + interval '2 hours', g % 7 <> 0, g % 11 <> 0, g % 13 <> 0
               FROM generate_series(1, ${HISTORY}) g`,
      values: [firstId, r.id, fleet.patroller],
    },
  ];
}

// The bulk run ---------------------------------------------------------------------------------------------

/**
 * n rows over the whole fleet (rider k·riders/n, in id order) and every variation in turn, in a temporary
 * table the rolled-back transaction drops, so that the timed INSERT reads nothing but it.
 */
const bulkRows = (n: number): Stmt => ({
  label: 'bulk rows',
  text: `CREATE TEMP TABLE kept_writes_bulk AS
         WITH fleet AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM riders),
              vars AS (SELECT id, product_id, row_number() OVER (ORDER BY id) - 1 AS k FROM product_variations)
         SELECT g, f.id AS rider_id, v.id AS variation_id, v.product_id,
                now() - interval '1 day' + g * (interval '1 day' / $1::int) AS at
           FROM generate_series(0, $1::int - 1) g
           -- The counts as subqueries, not window columns of the joined side: that keeps these hash joins.
           JOIN fleet f ON f.k = g::bigint * (SELECT count(*) FROM riders) / $1::int
           JOIN vars v ON v.k = g % (SELECT count(*) FROM product_variations)`,
  values: [n],
});

export function bulkKinds(fleet: Fleet, n: number): WriteKind[] {
  const firstId = fleet.idBase + 50_000_000;
  return [
    {
      kind: 'bulk checks',
      position: `${n} rows`,
      tables: ['patrol_checks'],
      setup: [bulkRows(n)],
      timed: [
        {
          label: 'insert patrol_checks',
          text: `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
                 SELECT $1::bigint + g, rider_id, $2, at, g % 10 <> 0, g % 13 <> 0, g % 17 <> 0 FROM kept_writes_bulk`,
          values: [firstId, fleet.patroller],
        },
      ],
    },
    {
      kind: 'bulk assignments',
      position: `${n} rows`,
      tables: ['assignments'],
      setup: [bulkRows(n)],
      timed: [
        {
          label: 'insert assignments',
          text: `INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
                 SELECT $1::bigint + g, rider_id, product_id, variation_id, at, $2, g % 2, 'assign' FROM kept_writes_bulk`,
          values: [firstId, fleet.appUser],
        },
      ],
    },
  ];
}

// The concurrent run ---------------------------------------------------------------------------------------

/** The tables the concurrent writers write: their user triggers are what the run "without" switches off. */
export const CONCURRENT_TABLES = [
  'riders',
  'assignments',
  'product_returns',
  'patrol_checks',
  'patrol_check_answers',
  'patrol_check_items',
];

/** Run r's ids (0: with triggers, 1: without), writer w's from r's start + w·10,000,000. */
export function concurrentIdRange(fleet: Fleet, run: number): { from: number; to: number } {
  const from = fleet.idBase + 100_000_000 * (run + 1);
  return { from, to: from + 100_000_000 };
}

/** A return as one statement: the item given back and its return row. */
export const returnStatement = (assignmentId: number, returnId: number, user: string): Stmt => ({
  label: 'return',
  text: `WITH a AS (UPDATE assignments SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL RETURNING id)
         INSERT INTO product_returns (id, assignment_id, returned_at, returned_by, condition) SELECT $2, a.id, now(), $3, 'Good' FROM a`,
  values: [assignmentId, returnId, user],
});

/** A patrol check as one statement: the check, its answers and up to three of the rider's held items. */
export const checkStatement = (checkId: number, riderId: string, patroller: string, a: Answers, valid: boolean): Stmt => ({
  label: 'check',
  text: `WITH c AS (INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
                    VALUES ($1, $7, $8, now(), true, $9, true) RETURNING id),
              i AS (INSERT INTO patrol_check_items (check_id, position, assignment_id, status, image_url)
                    SELECT c.id, a.n, a.id, 'Good', '' FROM c,
                           LATERAL (SELECT id, row_number() OVER (ORDER BY id) AS n FROM assignments
                                     WHERE rider_id = $7 AND deleted_at IS NULL ORDER BY id LIMIT 3) a)
         INSERT INTO patrol_check_answers (check_id, position, question_id, answer, image_url, score) ${ANSWER_ROWS.replace('FROM unnest', 'FROM c, unnest')}`,
  values: [checkId, a.positions, a.questionIds, a.answers, a.images, a.scores, riderId, patroller, valid],
});

export const moveStatement = (riderId: string, from: string, to: string): Stmt => ({
  label: 'move',
  text: 'UPDATE riders SET company_id = $3 WHERE id = $1 AND company_id = $2',
  values: [riderId, from, to],
});

export const renameStatement = (riderId: string): Stmt => ({
  label: 'rename',
  text: `UPDATE riders SET name = name || ' x' WHERE id = $1`,
  values: [riderId],
});

/** Deletes what one run inserted (its id range), children first. */
export function cleanupStatements(range: { from: number; to: number }): Stmt[] {
  const inRange = (column: string) => `${column} >= $1 AND ${column} < $2`;
  const values = [range.from, range.to];
  const del = (table: string, where: string): Stmt => ({ label: `delete ${table}`, text: `DELETE FROM ${table} WHERE ${where}`, values });
  return [
    del('patrol_check_items', `${inRange('check_id')} OR ${inRange('assignment_id')}`),
    del('patrol_check_answers', inRange('check_id')),
    del('patrol_checks', inRange('id')),
    del('product_returns', `${inRange('id')} OR ${inRange('assignment_id')}`),
    del('product_exchanges', `${inRange('id')} OR ${inRange('old_assignment_id')} OR ${inRange('new_assignment_id')}`),
    del('assignments', inRange('id')),
  ];
}

/** Puts riders back in their companies and under their names, touching only those that differ. */
export function restoreRiders(companies: Map<string, string>, names: Map<string, string>): Stmt[] {
  return [
    {
      label: 'restore companies',
      text: `UPDATE riders r SET company_id = o.company_id FROM unnest($1::bigint[], $2::bigint[]) o(id, company_id)
              WHERE r.id = o.id AND r.company_id <> o.company_id`,
      values: [[...companies.keys()], [...companies.values()]],
    },
    {
      label: 'restore names',
      text: `UPDATE riders r SET name = o.name FROM unnest($1::bigint[], $2::text[]) o(id, name) WHERE r.id = o.id AND r.name <> o.name`,
      values: [[...names.keys()], [...names.values()]],
    },
  ];
}

/** Every rider's id and country, for the concurrent writers' random picks across the fleet. */
export async function loadRiderList(client: pg.Client): Promise<{ ids: string[]; countries: string[] }> {
  const { rows } = await client.query({ text: 'SELECT id::text, country_id::text FROM riders ORDER BY id', rowMode: 'array' });
  return { ids: rows.map((r) => r[0] as string), countries: rows.map((r) => r[1] as string) };
}

export async function ridersOf(client: pg.Client, companyId: string): Promise<string[]> {
  return (
    await client.query({ text: 'SELECT id::text FROM riders WHERE company_id = $1 ORDER BY id', values: [companyId], rowMode: 'array' })
  ).rows.map((r) => r[0] as string);
}

export async function riderNames(client: pg.Client, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await client.query('SELECT id::text, name FROM riders WHERE id = ANY ($1::bigint[])', [ids]);
  return new Map(rows.map((r) => [r.id as string, r.name as string]));
}
