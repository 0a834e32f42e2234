// What bench/kept-writes.ts reads of the dataset to build its statements from (bench/kept-writes-sql.ts): the
// first, middle and last rider, the catalogue, each country's questionnaire answered, and an id base above every row.
import type pg from 'pg';

export interface Rider {
  id: string;
  companyId: string;
  countryId: string;
  /** The rider's oldest item still held (assigned before now), if any: what a return or an exchange gives back. */
  held?: { id: string; productId: string; variationId: string };
}

/** A patrol check's answers for one country's questionnaire, as arrays for unnest(). */
export interface Answers {
  positions: number[];
  questionIds: string[];
  answers: (string | null)[];
  images: (string | null)[];
  scores: (number | null)[];
}

export interface Fleet {
  riders: number;
  positions: Array<{ position: string; rider: Rider }>;
  variations: Array<{ id: string; productId: string }>;
  appUser: string;
  patroller: string;
  /** Companies by riders, most first. */
  companies: Array<{ id: string; riders: number }>;
  answers: Map<string, Answers>;
  topProduct: string;
  topVariation: string;
  /** Above every id of assignments, checks, returns and exchanges, by at least 1,000,000. */
  idBase: number;
}

/** Answers per check, as the brief and the seed have it (10 to 20; 15 here). */
export const ANSWERS_PER_CHECK = 15;

const one = async <T>(client: pg.Client, text: string, values: unknown[] = []): Promise<T> =>
  (await client.query(text, values)).rows[0] as T;

async function rider(client: pg.Client, id: string): Promise<Rider> {
  const row = await one<Record<string, string | null>>(
    client,
    `SELECT r.id::text, r.company_id::text, r.country_id::text, a.id::text AS held_id, a.product_id::text, a.variation_id::text
       FROM riders r
       LEFT JOIN LATERAL (SELECT id, product_id, variation_id FROM assignments
                           WHERE rider_id = r.id AND deleted_at IS NULL AND assigned_at <= now() ORDER BY id LIMIT 1) a ON true
      WHERE r.id = $1`,
    [id],
  );
  const held = row.held_id ? { id: row.held_id, productId: row.product_id!, variationId: row.variation_id! } : undefined;
  return { id: row.id!, companyId: row.company_id!, countryId: row.country_id!, held };
}

/** Each country's first ANSWERS_PER_CHECK questions (again from the first when it has fewer), answered with their first choice. */
async function answersByCountry(client: pg.Client): Promise<Map<string, Answers>> {
  const { rows } = await client.query(
    `SELECT q.country_id::text AS country, q.id::text AS id, q.question_type AS type, qa.name, qa.score
       FROM questions q
       LEFT JOIN LATERAL (SELECT name, score FROM question_answers WHERE question_id = q.id ORDER BY position LIMIT 1) qa ON true
      ORDER BY q.country_id, q.id`,
  );
  const questions = new Map<string, Array<{ id: string; type: string; name: string | null; score: number | null }>>();
  for (const row of rows) questions.set(row.country, [...(questions.get(row.country) ?? []), row]);
  const out = new Map<string, Answers>();
  for (const [country, list] of questions) {
    const a: Answers = { positions: [], questionIds: [], answers: [], images: [], scores: [] };
    for (let p = 1; p <= ANSWERS_PER_CHECK; p++) {
      const q = list[(p - 1) % list.length];
      const photo = q.type === 'PHOTO';
      const answer = photo ? null : q.type === 'TEXT' ? 'All fine' : q.type.endsWith(':MULTIPLE') ? [q.name ?? 'None'] : (q.name ?? 'Yes');
      a.positions.push(p);
      a.questionIds.push(q.id);
      a.answers.push(answer === null ? null : JSON.stringify(answer));
      a.images.push(photo ? `https://cdn.example.com/patrol/bench/q${q.id}.jpg` : null);
      a.scores.push(photo || q.type === 'TEXT' ? null : q.score);
    }
    out.set(country, a);
  }
  return out;
}

export async function loadFleet(client: pg.Client): Promise<Fleet> {
  const counts = await one<{ riders: number; first: string; last: string }>(
    client,
    'SELECT count(*)::int AS riders, min(id)::text AS first, max(id)::text AS last FROM riders',
  );
  if (counts.riders === 0) throw new Error('the database has no riders');
  const middle = await one<{ id: string }>(client, 'SELECT id::text FROM riders ORDER BY id OFFSET $1 LIMIT 1', [
    Math.floor(counts.riders / 2),
  ]);
  const positions = [
    { position: 'first', rider: await rider(client, counts.first) },
    { position: 'middle', rider: await rider(client, middle.id) },
    { position: 'last', rider: await rider(client, counts.last) },
  ];
  const variations = (await client.query('SELECT id::text, product_id::text AS "productId" FROM product_variations ORDER BY id')).rows;
  const people = await one<{ user: string; patroller: string }>(
    client,
    'SELECT (SELECT min(id) FROM app_users)::text AS user, (SELECT min(id) FROM patrollers)::text AS patroller',
  );
  const companies = (
    await client.query(
      `SELECT c.id::text, count(r.id)::int AS riders FROM companies c LEFT JOIN riders r ON r.company_id = c.id
        GROUP BY c.id ORDER BY 2 DESC, c.id`,
    )
  ).rows;
  // The product and the variation whose rename rewrites the most kept rows: the most assigned.
  const top = await one<{ product: string; variation: string }>(
    client,
    `SELECT (SELECT product_id FROM assignments GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1)::text AS product,
            (SELECT variation_id FROM assignments GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1)::text AS variation`,
  );
  const highest = await one<{ id: string }>(
    client,
    `SELECT greatest((SELECT max(id) FROM assignments), (SELECT max(id) FROM patrol_checks),
                     (SELECT max(id) FROM product_returns), (SELECT max(id) FROM product_exchanges), 0)::text AS id`,
  );
  const idBase = Math.ceil((Number(highest.id) + 1_000_000) / 1_000_000) * 1_000_000;
  // The concurrent runs use ids up to idBase + 300,000,000 (see concurrentIdRange).
  if (!Number.isSafeInteger(idBase + 1e9)) throw new Error(`ids up to ${highest.id}: too large for this tool's arithmetic`);
  if (!people.user || !people.patroller || variations.length === 0 || !top.product || companies.length < 2)
    throw new Error('the database needs app users, patrollers, product variations, assignments and two companies');
  return {
    riders: counts.riders,
    positions,
    variations,
    appUser: people.user,
    patroller: people.patroller,
    companies,
    answers: await answersByCountry(client),
    topProduct: top.product,
    topVariation: top.variation,
    idBase,
  };
}
