// The writers of bench/kept-keepup.ts: pgbench clients on random riders of the whole fleet (-M prepared,
// commits not waiting for the disk, as a busy writer runs), their script and the fleet it writes to.
import { spawn } from 'node:child_process';
import type pg from 'pg';

/** What pgbench is asked: its clients, for how long, on which database. */
export interface WritersOptions {
  url: string;
  writers: number;
  seconds: number;
}

/** Ids of the rows the writers insert: far above the data's, a range per run (the cleanup deletes them all). */
export const ID_BASE = 100_000_000_000;
export const ID_SPAN = 100_000_000;

export interface Fleet {
  riders: [number, number];
  companies: [string, string];
  user: string;
  patroller: string;
  variation: { id: string; productId: string };
  idBase: number;
}

export async function loadFleet(db: pg.Client): Promise<Fleet> {
  const one = async (text: string) => (await db.query(text)).rows[0] as Record<string, string>;
  const r = await one('SELECT min(id) AS lo, max(id) AS hi FROM riders');
  const c = (await db.query('SELECT company_id::text AS id FROM riders GROUP BY 1 ORDER BY count(*) DESC LIMIT 2')).rows;
  const v = await one('SELECT id::text, product_id::text FROM product_variations ORDER BY id LIMIT 1');
  return {
    riders: [Number(r.lo), Number(r.hi)],
    companies: [c[0].id as string, c[1].id as string],
    user: (await one('SELECT min(id)::text AS id FROM app_users')).id,
    patroller: (await one('SELECT min(id)::text AS id FROM patrollers')).id,
    variation: { id: v.id, productId: v.product_id },
    idBase: ID_BASE,
  };
}

/** One writer's transaction, chosen at random: the mix of bench/kept-writes.ts with exchanges added. */
export function script(f: Fleet): string {
  const [ca, cb] = f.companies;
  return `\\set r random(${f.riders[0]}, ${f.riders[1]})
\\set op random(1, 100)
\\set n :n + 1
\\set id :base + :client_id * 1000000 + :n
\\if :op <= 25
INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
  VALUES (:id, :r, ${f.variation.productId}, ${f.variation.id}, now(), ${f.user}, 0, 'assign');
\\set last :id
\\elif :op <= 40
WITH a AS (UPDATE assignments SET deleted_at = now() WHERE id = :last AND deleted_at IS NULL RETURNING id)
  INSERT INTO product_returns (id, assignment_id, returned_at, returned_by, condition) SELECT :id, a.id, now(), ${f.user}, 'Good' FROM a;
\\elif :op <= 50
WITH o AS (UPDATE assignments SET deleted_at = now() WHERE id = :last AND deleted_at IS NULL RETURNING id, rider_id),
     n AS (INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type)
             SELECT :id, rider_id, ${f.variation.productId}, ${f.variation.id}, now(), ${f.user}, 0, 'exchange' FROM o RETURNING id)
  INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by)
  SELECT :id, o.id, n.id, now(), 'Damaged', 'Exchange', ${f.user} FROM o, n;
\\set last :id
\\elif :op <= 75
WITH c AS (INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
             VALUES (:id, :r, ${f.patroller}, now(), true, random() > 0.2, true) RETURNING id)
  INSERT INTO patrol_check_answers (check_id, position, question_id, answer, image_url, score)
  SELECT c.id, q, q, '"Yes"', NULL, 1 FROM c, generate_series(1, 15) q;
\\elif :op <= 85
UPDATE riders SET company_id = CASE company_id WHEN ${ca} THEN ${cb} ELSE ${ca} END WHERE id = :r AND company_id IN (${ca}, ${cb});
\\else
UPDATE riders SET name = name || ' x' WHERE id = :r;
\\endif
`;
}

export interface Pgbench {
  tps: number;
  transactions: number;
  failed: number;
  latencyMs: number;
}

/** pgbench with the writers' script for `seconds`, at full speed or at `rate` transactions a second in all. */
export function pgbench(o: WritersOptions, file: string, base: number, rate?: number): Promise<Pgbench> {
  const args = ['-n', '-M', 'prepared', '-c', String(o.writers), '-j', String(Math.min(o.writers, 2)), '-T', String(o.seconds)];
  args.push('-D', `base=${base}`, '-D', 'n=0', '-D', 'last=0', '-f', file);
  if (rate) args.push('-R', String(rate));
  args.push(o.url);
  return new Promise((resolve, reject) => {
    const child = spawn('pgbench', args, { env: { ...process.env, PGOPTIONS: '-c synchronous_commit=off' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
      if (code !== 0) return reject(new Error(`pgbench exited ${code}:\n${out.slice(-2000)}`));
      resolve({
        tps: num(/tps = ([\d.]+) \(without initial/),
        transactions: num(/number of transactions actually processed: (\d+)/),
        failed: num(/number of failed transactions: (\d+)/) || 0,
        latencyMs: num(/latency average = ([\d.]+) ms/),
      });
    });
  });
}
