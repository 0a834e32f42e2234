// The concurrent writers of bench/kept-writes.ts: which riders each moves and renames (the same in both
// runs), and one writer's loop of autocommit statements, its commits, times and SQLSTATEs.
import type pg from 'pg';
import * as sql from './kept-writes-sql';
import type { Fleet, Stmt } from './kept-writes-sql';
import { rngFor } from '../db/seeds/demo-random';
import { MIX, MOVE_POOL, RENAME_POOL, type Op } from './kept-writes-options';
import { sqlState, stop } from './kept-writes-db';

// Concurrent --------------------------------------------------------------------------------------------

interface WriterPlan {
  index: number;
  firstId: number;
  from: string;
  to: string;
  /** Riders of `from` this writer alone moves to `to`. */
  moves: string[];
  renames: string[];
}

export interface ConcurrentPlan {
  riders: { ids: string[]; countries: string[] };
  companyA: string;
  companyB: string;
  writers: Array<Omit<WriterPlan, 'firstId'>>;
  /** Each rider a writer may move or rename, with its company and name before the run. */
  companies: Map<string, string>;
  names: Map<string, string>;
}

function shuffled<T>(items: T[], rng: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * Half the writers move riders of the largest company A to the second B, half B to A, each on riders of
 * its own, so that two moves cross between the same two companies at the same time.
 */
export async function planConcurrent(client: pg.Client, fleet: Fleet, writers: number): Promise<ConcurrentPlan> {
  // Seeded: the same picks in the run with the triggers and the run without.
  const rng = rngFor(42, 0, 0);
  const riders = await sql.loadRiderList(client);
  const [companyA, companyB] = [fleet.companies[0].id, fleet.companies[1].id];
  const pools = {
    [companyA]: shuffled(await sql.ridersOf(client, companyA), rng),
    [companyB]: shuffled(await sql.ridersOf(client, companyB), rng),
  };
  const renamePool = [
    ...new Set(Array.from({ length: writers * RENAME_POOL * 2 }, () => riders.ids[Math.floor(rng() * riders.ids.length)])),
  ];
  const plans = Array.from({ length: writers }, (_, index) => {
    const [from, to] = index % 2 === 0 ? [companyA, companyB] : [companyB, companyA];
    const sameWay = Math.ceil((writers - (index % 2)) / 2);
    const k = Math.floor(index / 2);
    const pool = pools[from];
    const share = Math.min(MOVE_POOL, Math.floor(pool.length / sameWay));
    return {
      index,
      from,
      to,
      moves: pool.slice(k * share, (k + 1) * share),
      renames: renamePool.slice(index * RENAME_POOL, (index + 1) * RENAME_POOL),
    };
  });
  const companies = new Map(plans.flatMap((p) => p.moves.map((id): [string, string] => [id, p.from])));
  const names = await sql.riderNames(
    client,
    plans.flatMap((p) => p.renames),
  );
  return { riders, companyA, companyB, writers: plans, companies, names };
}

interface OpStats {
  commits: number;
  errors: Record<string, number>;
  ms: number[];
}

export type Stats = Record<Op, OpStats>;

export const newStats = (): Stats => Object.fromEntries(MIX.map(([op]) => [op, { commits: 0, errors: {}, ms: [] }])) as unknown as Stats;

/** One autocommit statement: its time when it commits, its SQLSTATE when it fails. */
async function exec(client: pg.Client, s: Stmt, stats: OpStats): Promise<boolean> {
  const started = performance.now();
  try {
    await client.query(s.text, s.values);
    stats.commits++;
    stats.ms.push(performance.now() - started);
    return true;
  } catch (error) {
    const code = sqlState(error);
    stats.errors[code] = (stats.errors[code] ?? 0) + 1;
    return false;
  }
}

function pickOp(rng: () => number): Op {
  const total = MIX.reduce((sum, [, w]) => sum + w, 0);
  let x = rng() * total;
  for (const [op, w] of MIX) {
    if (x < w) return op;
    x -= w;
  }
  return MIX[0][0];
}

/**
 * One writer: until the deadline, a random op on a random rider of the fleet; it moves and renames riders
 * of its own only, so that the run knows what to put back, and gives back only items it handed out.
 */
export class Writer {
  private readonly rng: () => number;
  private nextId: number;
  private readonly moves: string[];
  /** This writer's assignments not given back yet, oldest first. */
  private readonly held: number[] = [];

  constructor(
    private readonly client: pg.Client,
    private readonly plan: WriterPlan,
    private readonly fleet: Fleet,
    private readonly riders: ConcurrentPlan['riders'],
    private readonly stats: Stats,
  ) {
    this.rng = rngFor(1000 + plan.index, 0, 0);
    this.nextId = plan.firstId;
    this.moves = [...plan.moves];
  }

  async run(deadline: number): Promise<void> {
    while (Date.now() < deadline && !stop.requested) await this[this.choose()]();
  }

  /** A writer out of riders to move (or, in a tiny dataset, of riders to rename or answers to give) assigns instead. */
  private choose(): Op {
    const op = pickOp(this.rng);
    const possible = { move: this.moves.length > 0, rename: this.plan.renames.length > 0, check: this.fleet.answers.size > 0 };
    return possible[op as keyof typeof possible] === false ? 'assign' : op;
  }

  private pick<T>(items: T[]): T {
    return items[Math.floor(this.rng() * items.length)];
  }

  private async assign(): Promise<void> {
    const id = this.nextId++;
    const rider = this.pick(this.riders.ids);
    const ok = await exec(
      this.client,
      sql.insertAssignment(id, rider, this.pick(this.fleet.variations), this.fleet.appUser),
      this.stats.assign,
    );
    if (ok) this.held.push(id);
  }

  private async return(): Promise<void> {
    if (this.held.length === 0) await this.assign();
    const id = this.held.shift();
    if (id !== undefined) await exec(this.client, sql.returnStatement(id, this.nextId++, this.fleet.appUser), this.stats.return);
  }

  private async check(): Promise<void> {
    const r = Math.floor(this.rng() * this.riders.ids.length);
    const answers = this.fleet.answers.get(this.riders.countries[r]) ?? [...this.fleet.answers.values()][0];
    const statement = sql.checkStatement(this.nextId++, this.riders.ids[r], this.fleet.patroller, answers, this.rng() > 0.2);
    await exec(this.client, statement, this.stats.check);
  }

  private async move(): Promise<void> {
    await exec(this.client, sql.moveStatement(this.moves.pop()!, this.plan.from, this.plan.to), this.stats.move);
  }

  private async rename(): Promise<void> {
    await exec(this.client, sql.renameStatement(this.pick(this.plan.renames)), this.stats.rename);
  }
}
