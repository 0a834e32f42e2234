// Patrol checks: a patroller's check of a rider, the items of the rider's equipment it looked at, and
// the answers to the questionnaire of the rider's country.

import { bool, json, NULL, nullableText, row, text, textArray } from './bulk-load';

import { chance, int, pick, rngFor, sampleOrdered, STREAM, weighted, type Rng } from './demo-random';

import { DAY, SECOND, timestamp } from './demo-time';
import type { World } from './demo-world';
import { FAKE_ID_NOTES, REMARKS } from './names';
import type { Check, Country, IdCursor, Question, RiderPlan } from './demo-types';

const ITEM_STATUSES: ReadonlyArray<readonly [string, number]> = [
  ['Good', 60],
  ['Damaged', 18],
  ['Missing', 10],
  ['Needs exchange', 12],
];
const ITEMS_PER_CHECK: ReadonlyArray<readonly [number, number]> = [
  [0, 35],
  [1, 30],
  [2, 22],
  [3, 13],
];

export function planChecks(world: World, riderId: number, country: Country, joinedAt: number, ids: IdCursor): Check[] {
  const rng = rngFor(world.seed, STREAM.checks, riderId);
  const n = int(rng, 5, 15);
  const from = joinedAt + DAY;
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(from + Math.floor((rng() * (world.anchor - from)) / SECOND) * SECOND);
  times.sort((a, b) => a - b);
  return times.map((checkedAt) => {
    const id = ++ids.check;
    const idValid = !chance(rng, 0.1);
    const images: string[] = [];
    let note: string | null = null;
    if (!idValid) {
      note = pick(rng, FAKE_ID_NOTES);
      for (let i = int(rng, 0, 3); i > 0; i--) images.push(`https://cdn.example.com/fake-id/${id}-${images.length + 1}.jpg`);
    }
    return {
      id,
      patrollerId: pick(rng, country.patrollers),
      checkedAt,
      idValid,
      plateValid: !chance(rng, 0.1),
      stickerValid: !chance(rng, 0.1),
      note,
      images,
    };
  });
}

// Row generators over the riders' plans.

/** Needs the plans' checks. */
export function* checkRows(plans: Iterable<RiderPlan>) {
  for (const r of plans) {
    for (const c of r.checks) {
      yield row([
        c.id,
        r.id,
        c.patrollerId,
        timestamp(c.checkedAt),
        bool(c.idValid),
        bool(c.plateValid),
        bool(c.stickerValid),
        nullableText(c.note),
        textArray(c.images),
        r.companyId,
      ]);
    }
  }
}

/**
 * 0-3 items per check, chosen among the assignments the rider held at the time of the check. Needs
 * the plans' assignments and checks.
 */
export function* checkItemRows(world: World, plans: Iterable<RiderPlan>) {
  for (const r of plans) {
    const rng = rngFor(world.seed, STREAM.items, r.id);
    for (const c of r.checks) {
      const held = r.assignments.filter((a) => a.assignedAt <= c.checkedAt && (a.deletedAt === null || a.deletedAt > c.checkedAt));
      const n = Math.min(weighted(rng, ITEMS_PER_CHECK), held.length);
      for (let pos = 1; pos <= n; pos++) {
        // Partial Fisher-Yates: distinct assignments per check.
        const j = pos - 1 + Math.floor(rng() * (held.length - pos + 1));
        [held[pos - 1], held[j]] = [held[j], held[pos - 1]];
        const status = weighted(rng, ITEM_STATUSES);
        yield row([c.id, pos, held[pos - 1].id, text(status), `https://cdn.example.com/patrol/${c.id}/item-${pos}.jpg`]);
      }
    }
  }
}

/** COPY-ready jsonb text of a multiple-choice answer, cached per question and set of choices. */
function multiJson(q: Question, mask: number): string {
  let s = q.multiJson.get(mask);
  if (s === undefined) {
    s = json(q.choices.filter((_, i) => mask & (1 << i)).map((c) => c.name));
    q.multiJson.set(mask, s);
  }
  return s;
}

const REMARKS_JSON = REMARKS.map(json);

/** The answer, image and score columns for one question of one check. */
function answerFields(rng: Rng, q: Question, checkId: number): string {
  switch (q.type) {
    case 'MULTIPLE_CHOICE:SINGLE': {
      if (chance(rng, 0.04)) return `${NULL}\t${NULL}\t${NULL}`;
      // The first choice is the "good" one and the usual answer.
      const c = chance(rng, 0.7) ? q.choices[0] : pick(rng, q.choices);
      return `${c.json}\t${NULL}\t${c.score}`;
    }
    case 'MULTIPLE_CHOICE:MULTIPLE': {
      if (chance(rng, 0.04)) return `${NULL}\t${NULL}\t${NULL}`;
      let mask = 0;
      let score = 0;
      q.choices.forEach((c, i) => {
        if (chance(rng, 0.35)) {
          mask |= 1 << i;
          score += c.score;
        }
      });
      if (mask === 0) {
        mask = 1;
        score = q.choices[0].score;
      }
      return `${multiJson(q, mask)}\t${NULL}\t${score}`;
    }
    case 'TEXT': {
      if (chance(rng, 0.25)) return `${NULL}\t${NULL}\t${NULL}`;
      if (q.text === 'Odometer reading') return `${json(`${int(rng, 1000, 99999)} km`)}\t${NULL}\t${NULL}`;
      if (q.text === 'ID number as shown')
        return `${json(`784-${int(rng, 1970, 2005)}-${int(rng, 1000000, 9999999)}-${int(rng, 1, 9)}`)}\t${NULL}\t${NULL}`;
      return `${pick(rng, REMARKS_JSON)}\t${NULL}\t${NULL}`;
    }
    case 'PHOTO':
      return `${NULL}\thttps://cdn.example.com/patrol/${checkId}/q${q.id}.jpg\t${NULL}`;
  }
}

/** 10-20 answers per check, to an ordered subset of the questions of the rider's country. Needs the plans' checks. */
export function* checkAnswerRows(world: World, plans: Iterable<RiderPlan>) {
  for (const r of plans) {
    const questions = r.country.questions;
    for (const c of r.checks) {
      const rng = rngFor(world.seed, STREAM.answers, c.id);
      const asked = sampleOrdered(rng, questions, Math.min(questions.length, int(rng, 12, 20))); // countries have 12-20
      for (let i = 0; i < asked.length; i++) {
        yield `${c.id}\t${i + 1}\t${asked[i].id}\t${answerFields(rng, asked[i], c.id)}\n`;
      }
    }
  }
}
