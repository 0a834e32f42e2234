// Demo data for the rider equipment service: a deterministic, seeded, synthetic fleet.
//
// Every table is loaded with COPY ... FROM STDIN (bulk-load.ts) from generators, so memory stays flat
// at any size. Tables that depend on each other (assignments -> returns/exchanges/check items) are
// written in separate passes over the riders; each pass rebuilds a rider's plan from a PRNG seeded by
// (seed, rider id), so the passes agree without keeping anything from the previous one.

import type { ClientBase } from 'pg';
import { performance } from 'node:perf_hooks';
import {
  bool, copyRows, deferConstraints, json, NULL, nullableText, restoreConstraints, row, seconds, text, textArray,
  type LoadContext, type Progress,
} from './bulk-load';
import { ARABIC_FIRST_NAMES, ARABIC_LAST_NAMES, FAKE_ID_NOTES, FIRST_NAMES, LAST_NAMES, REMARKS } from './names';

export interface DemoOptions {
  riders: number;
  seed: number;
  /**
   * The moment the history ends (ms since the epoch); the newest records are from the hour before it.
   * Fixed by default (DEMO_ANCHOR), so tests and the bench load the same rows on every run; `npm start`
   * passes its own start, so the demo it loads ends today.
   */
  anchor?: number;
  log?: (msg: string) => void;
}

export const DEFAULT_DEMO: DemoOptions = { riders: 300, seed: 42 };

// ---------------------------------------------------------------------------------------------
// Time: everything is relative to a fixed anchor so that the data never depends on the clock.

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;
export const DEMO_ANCHOR = Date.UTC(2026, 9, 31); // 2026-10-31T00:00:00Z
const HISTORY_DAYS = 540; // ~18 months back from the anchor
const FIRST_RIDER_ID = 100001;

const timestamp = (ms: number): string => new Date(ms).toISOString();

// ---------------------------------------------------------------------------------------------
// Seeded randomness. mulberry32: 32-bit state, good enough for demo data and fast.

type Rng = () => number; // uniform in [0, 1)

function mulberry32(state: number): Rng {
  let a = state >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes two 32-bit values into one (murmur3 finaliser), to derive independent seeds. */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Independent random streams, so that e.g. adding a field to checks does not shift assignments. */
const STREAM = { world: 1, rider: 2, assignments: 3, checks: 4, items: 5, answers: 6 } as const;

function rngFor(seed: number, stream: number, id: number): Rng {
  return mulberry32(mix(mix(seed, stream), id));
}

const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const chance = (rng: Rng, p: number): boolean => rng() < p;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];

function weighted<T>(rng: Rng, options: ReadonlyArray<readonly [T, number]>): T {
  let total = 0;
  for (const [, w] of options) total += w;
  let r = rng() * total;
  for (const [value, w] of options) {
    r -= w;
    if (r < 0) return value;
  }
  return options[options.length - 1][0];
}

/** k distinct items of xs in their original order (selection sampling). */
function sampleOrdered<T>(rng: Rng, xs: readonly T[], k: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < xs.length && out.length < k; i++) {
    if (rng() * (xs.length - i) < k - out.length) out.push(xs[i]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The world: the small reference tables, built in memory once.

interface Country {
  id: number;
  code: string;
  name: string;
  weight: number; // share of riders
  patrollers: number[];
  questions: Question[];
}

type QuestionType = 'MULTIPLE_CHOICE:SINGLE' | 'MULTIPLE_CHOICE:MULTIPLE' | 'TEXT' | 'PHOTO';

interface Choice {
  position: number;
  name: string;
  nameAr: string;
  score: number;
  jump: string; // '' = go on to the next question
  skip: string[];
  json: string; // the COPY-ready jsonb text of this answer when chosen alone
}

interface Question {
  id: number;
  countryId: number;
  text: string;
  type: QuestionType;
  category: string;
  choices: Choice[];
  multiJson: Map<number, string>; // MULTIPLE: COPY-ready jsonb arrays by bitmask of chosen choices
}

interface Product {
  id: number;
  name: string;
  categoryId: number;
  imageUrl: string;
  exchangeAfterDays: number;
  weight: number; // how often it is handed out
  variations: Variation[];
}

interface Variation {
  id: number;
  productId: number;
  name: string;
}

interface Person {
  id: number;
  name: string;
}

interface World {
  seed: number;
  /** Where the history ends: DemoOptions.anchor. */
  anchor: number;
  countries: Country[];
  companies: Person[];
  appUsers: Person[];
  patrollers: Person[];
  categories: Person[];
  products: Product[];
  productsByCategory: Map<number, Product[]>;
  questions: Question[];
  // Weighted choice tables, built once rather than per draw.
  countryOdds: ReadonlyArray<readonly [Country, number]>;
  companyOdds: ReadonlyArray<readonly [number, number]>;
  productOdds: ReadonlyArray<readonly [Product, number]>;
}

const COUNTRIES: ReadonlyArray<readonly [string, string, number]> = [
  ['AE', 'United Arab Emirates', 30],
  ['SA', 'Saudi Arabia', 25],
  ['KW', 'Kuwait', 10],
  ['QA', 'Qatar', 9],
  ['BH', 'Bahrain', 5],
  ['OM', 'Oman', 5],
  ['EG', 'Egypt', 11],
  ['JO', 'Jordan', 5],
];

// Free-text 3PL names: spaces, an ampersand and an apostrophe exercise the filters and URLs.
const COMPANIES: ReadonlyArray<readonly [string, number]> = [
  ['Swift & Co', 25],
  ["Road Runner's", 20],
  ['Desert Falcon Logistics', 20],
  ['Oasis Riders', 15],
  ['BlueCamel', 12],
  ['Al Noor Delivery Services', 8],
];

const CATEGORIES = ['Helmets', 'Jackets', 'Bags', 'Boxes', 'Phone holders', 'Power banks', 'T-shirts', 'Rain gear'];

type VariationKind = 'size' | 'size+colour' | 'colour' | 'capacity';

// [name, category id (1-based into CATEGORIES), how variations are named, hand-out weight]
const PRODUCTS: ReadonlyArray<readonly [string, number, VariationKind, number]> = [
  ['Standard Helmet', 1, 'size', 10],
  ['Full-face Helmet', 1, 'size+colour', 4],
  ['Summer Jacket', 2, 'size', 6],
  ['Winter Jacket', 2, 'size', 5],
  ['Reflective Vest', 2, 'size', 6],
  ['Thermal Bag 40L', 3, 'colour', 8],
  ['Delivery Backpack 28L', 3, 'colour', 6],
  ['Pizza Bag', 3, 'capacity', 3],
  ['Delivery Box 52L', 4, 'colour', 9],
  ['Top Box 45L', 4, 'capacity', 5],
  ['Handlebar Phone Mount', 5, 'colour', 7],
  ['Phone Holder Pro', 5, 'colour', 4],
  ['Power Bank 10000mAh', 6, 'colour', 6],
  ['Power Bank 20000mAh', 6, 'colour', 4],
  ['Polo T-shirt', 7, 'size+colour', 9],
  ['Crew T-shirt', 7, 'size', 8],
  ['Long-sleeve T-shirt', 7, 'size', 4],
  ['Rain Poncho', 8, 'size', 3],
  ['Rain Trousers', 8, 'size', 2],
  ['Waterproof Gloves', 8, 'size', 3],
];

const SIZES = ['S', 'M', 'L', 'XL', 'XXL'];
const COLOURS = ['Black', 'Red', 'Blue', 'Grey', 'Orange', 'Yellow', 'Green'];
const CAPACITIES = ['Small', 'Medium', 'Large', 'Extra large'];

function variationNames(rng: Rng, kind: VariationKind): string[] {
  const k = int(rng, 2, 5);
  switch (kind) {
    case 'size': {
      const first = int(rng, 0, SIZES.length - k); // a run of neighbouring sizes
      return SIZES.slice(first, first + k);
    }
    case 'size+colour': {
      const colour = pick(rng, COLOURS);
      return sampleOrdered(rng, SIZES, k).map((s) => `${s} / ${colour}`);
    }
    case 'colour':
      return sampleOrdered(rng, COLOURS, k);
    case 'capacity':
      return sampleOrdered(rng, CAPACITIES, Math.min(k, CAPACITIES.length));
  }
}

type ChoiceTemplate = readonly [name: string, nameAr: string, score: number];
const YES_NO: readonly ChoiceTemplate[] = [['Yes', 'نعم', 2], ['No', 'لا', -2]];

// The questionnaire bank; each country asks an ordered subset of it.
const QUESTION_BANK: ReadonlyArray<readonly [string, QuestionType, string, readonly ChoiceTemplate[]]> = [
  ['Is the rider wearing the company uniform?', 'MULTIPLE_CHOICE:SINGLE', 'Appearance', YES_NO],
  ['Condition of the uniform', 'MULTIPLE_CHOICE:SINGLE', 'Appearance', [['Good', 'جيد', 2], ['Acceptable', 'مقبول', 0], ['Poor', 'سيئ', -2]]],
  ['Is the rider well groomed?', 'MULTIPLE_CHOICE:SINGLE', 'Appearance', YES_NO],
  ['Which uniform items are missing?', 'MULTIPLE_CHOICE:MULTIPLE', 'Appearance', [['None', 'لا شيء', 1], ['T-shirt', 'قميص', -1], ['Jacket', 'سترة', -1], ['Cap', 'قبعة', -1]]],
  ['Photo of the rider in uniform', 'PHOTO', 'Appearance', []],
  ['Is the license plate clearly visible?', 'MULTIPLE_CHOICE:SINGLE', 'Vehicle', YES_NO],
  ['Vehicle condition', 'MULTIPLE_CHOICE:SINGLE', 'Vehicle', [['Good', 'جيد', 2], ['Needs service', 'يحتاج صيانة', -1], ['Damaged', 'تالف', -3]]],
  ['Are the lights working?', 'MULTIPLE_CHOICE:SINGLE', 'Vehicle', YES_NO],
  ['Which vehicle issues were found?', 'MULTIPLE_CHOICE:MULTIPLE', 'Vehicle', [['None', 'لا شيء', 1], ['Tyres worn', 'إطارات مهترئة', -1], ['Broken mirror', 'مرآة مكسورة', -1], ['Brake problem', 'مشكلة في الفرامل', -3], ['Lights', 'الأضواء', -1]]],
  ['Photo of the vehicle', 'PHOTO', 'Vehicle', []],
  ['Odometer reading', 'TEXT', 'Vehicle', []],
  ['Is the delivery box clean?', 'MULTIPLE_CHOICE:SINGLE', 'Equipment', YES_NO],
  ['Is the helmet worn correctly?', 'MULTIPLE_CHOICE:SINGLE', 'Equipment', [['Yes', 'نعم', 2], ['No', 'لا', -2], ['No helmet', 'بدون خوذة', -5]]],
  ['Condition of the delivery box', 'MULTIPLE_CHOICE:SINGLE', 'Equipment', [['Good', 'جيد', 2], ['Worn', 'مستهلك', 0], ['Damaged', 'تالف', -2], ['Missing', 'مفقود', -4]]],
  ['Which equipment is with the rider?', 'MULTIPLE_CHOICE:MULTIPLE', 'Equipment', [['Helmet', 'خوذة', 1], ['Box', 'صندوق', 1], ['Bag', 'حقيبة', 1], ['Phone holder', 'حامل هاتف', 1], ['Power bank', 'شاحن متنقل', 1]]],
  ['Is the company sticker on the box?', 'MULTIPLE_CHOICE:SINGLE', 'Equipment', YES_NO],
  ['Photo of the delivery box', 'PHOTO', 'Equipment', []],
  ['Equipment remarks', 'TEXT', 'Equipment', []],
  ['Does the rider carry a valid ID?', 'MULTIPLE_CHOICE:SINGLE', 'Documents', YES_NO],
  ['Is the driving licence valid?', 'MULTIPLE_CHOICE:SINGLE', 'Documents', [['Yes', 'نعم', 2], ['No', 'لا', -3], ['Expired', 'منتهي الصلاحية', -2]]],
  ['Is the vehicle registration available?', 'MULTIPLE_CHOICE:SINGLE', 'Documents', YES_NO],
  ['Which documents were shown?', 'MULTIPLE_CHOICE:MULTIPLE', 'Documents', [['ID card', 'بطاقة الهوية', 1], ['Driving licence', 'رخصة القيادة', 1], ['Vehicle registration', 'استمارة المركبة', 1], ['Insurance', 'التأمين', 1]]],
  ['Photo of the ID card', 'PHOTO', 'Documents', []],
  ['ID number as shown', 'TEXT', 'Documents', []],
  ['Patroller remarks', 'TEXT', 'Documents', []],
];

function personName(rng: Rng): string {
  // A few riders are registered in Arabic script.
  if (chance(rng, 0.04)) return `${pick(rng, ARABIC_FIRST_NAMES)} ${pick(rng, ARABIC_LAST_NAMES)}`;
  return `${pick(rng, FIRST_NAMES)} ${pick(rng, LAST_NAMES)}`;
}

function buildWorld(seed: number, anchor: number): World {
  const rng = rngFor(seed, STREAM.world, 0);
  const countries: Country[] = COUNTRIES.map(([code, name, weight], i) => ({ id: i + 1, code, name, weight, patrollers: [], questions: [] }));
  const companies = COMPANIES.map(([name], i) => ({ id: i + 1, name }));
  const appUsers = Array.from({ length: 50 }, (_, i) => ({ id: i + 1, name: personName(rng) }));
  const patrollers = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, name: personName(rng) }));
  // Patrollers work in one country each, round robin.
  for (const p of patrollers) countries[(p.id - 1) % countries.length].patrollers.push(p.id);

  const categories = CATEGORIES.map((name, i) => ({ id: i + 1, name }));
  let variationId = 0;
  const products: Product[] = PRODUCTS.map(([name, categoryId, kind, weight], i) => {
    const id = i + 1;
    const variations = variationNames(rng, kind).map((v) => ({ id: ++variationId, productId: id, name: v }));
    return { id, name, categoryId, imageUrl: `https://cdn.example.com/gear/${id}.jpg`, exchangeAfterDays: int(rng, 90, 365), weight, variations };
  });
  const productsByCategory = new Map<number, Product[]>();
  for (const p of products) productsByCategory.set(p.categoryId, [...(productsByCategory.get(p.categoryId) ?? []), p]);

  const questions: Question[] = [];
  for (const country of countries) {
    const bank = sampleOrdered(rng, QUESTION_BANK, int(rng, 12, 20));
    const firstId = questions.length + 1;
    const ids = bank.map((_, i) => firstId + i);
    bank.forEach(([qText, type, category, templates], i) => {
      const later = ids.slice(i + 1).map(String); // jump/skip only point forward
      const choices = templates.map(([name, nameAr, score], p): Choice => {
        const jump = later.length > 1 && chance(rng, 0.1) ? pick(rng, later.slice(1)) : '';
        const skip = later.length > 0 && chance(rng, 0.08) ? sampleOrdered(rng, later, Math.min(int(rng, 1, 2), later.length)) : [];
        return { position: p + 1, name, nameAr, score, jump, skip, json: json(name) };
      });
      const q: Question = { id: ids[i], countryId: country.id, text: qText, type, category, choices, multiJson: new Map() };
      country.questions.push(q);
      questions.push(q);
    });
  }
  return {
    seed, anchor, countries, companies, appUsers, patrollers, categories, products, productsByCategory, questions,
    countryOdds: countries.map((c) => [c, c.weight] as const),
    companyOdds: COMPANIES.map(([, w], i) => [i + 1, w] as const),
    productOdds: products.map((p) => [p, p.weight] as const),
  };
}

// ---------------------------------------------------------------------------------------------
// Riders and their history, rebuilt per pass from per-rider random streams.

interface Assignment {
  id: number;
  productId: number;
  variationId: number;
  assignedAt: number;
  assignedBy: number;
  method: 0 | 1; // 0 = Manual, 1 = Physical
  type: 'assign' | 'exchange';
  deletedAt: number | null;
}

interface ProductReturn {
  id: number;
  assignmentId: number;
  returnedAt: number;
  returnedBy: number;
  condition: string;
}

interface Exchange {
  id: number;
  oldAssignmentId: number;
  newAssignmentId: number;
  exchangedAt: number;
  exchangeType: string;
  replacementType: 'Lost' | 'Accident' | 'Exchange';
  processedBy: number;
}

interface Check {
  id: number;
  patrollerId: number;
  checkedAt: number;
  idValid: boolean;
  plateValid: boolean;
  stickerValid: boolean;
  note: string | null;
  images: string[];
}

interface RiderPlan {
  index: number; // 0-based position among riders
  id: number;
  name: string;
  companyId: number;
  country: Country;
  joinedAt: number;
  assignments: Assignment[];
  returns: ProductReturn[];
  exchanges: Exchange[];
  checks: Check[];
}

/** What happens to a drafted assignment; filled in while the rider's history is simulated. */
interface Draft {
  productId: number;
  variationId: number;
  assignedAt: number;
  assignedBy: number;
  method: 0 | 1;
  type: 'assign' | 'exchange';
  depth: number; // how many exchanges led to it
  deletedAt: number | null;
  returned?: { by: number; condition: string } | null; // null: soft-deleted without a return record
  exchange?: { to: Draft; exchangeType: string; replacementType: Exchange['replacementType']; by: number };
  id?: number;
}

const RETURN_CONDITIONS: ReadonlyArray<readonly [string, number]> = [['Good', 50], ['Worn', 25], ['Damaged', 15], ['Missing parts', 10]];
const EXCHANGE_KINDS: ReadonlyArray<readonly [readonly [string, Exchange['replacementType']], number]> = [
  [['Size change', 'Exchange'], 30],
  [['Damaged', 'Accident'], 20],
  [['Damaged', 'Exchange'], 15],
  [['Damaged', 'Lost'], 15],
  [['Upgrade', 'Exchange'], 15],
  [['Upgrade', 'Lost'], 5],
];
const ITEM_STATUSES: ReadonlyArray<readonly [string, number]> = [['Good', 60], ['Damaged', 18], ['Missing', 10], ['Needs exchange', 12]];
const ITEMS_PER_CHECK: ReadonlyArray<readonly [number, number]> = [[0, 35], [1, 30], [2, 22], [3, 13]];

function drawProduct(rng: Rng, world: World): [Product, Variation] {
  const product = weighted(rng, world.productOdds);
  return [product, pick(rng, product.variations)];
}

/** The replacement handed out in an exchange, depending on why the item was exchanged. */
function replacementFor(rng: Rng, world: World, old: Draft, exchangeType: string): [number, number] {
  const product = world.products[old.productId - 1];
  if (exchangeType === 'Size change') {
    const others = product.variations.filter((v) => v.id !== old.variationId);
    return [product.id, pick(rng, others).id];
  }
  if (exchangeType === 'Upgrade') {
    const siblings = (world.productsByCategory.get(product.categoryId) ?? []).filter((p) => p.id !== product.id);
    const target = siblings.length > 0 ? pick(rng, siblings) : product;
    return [target.id, pick(rng, target.variations).id];
  }
  return chance(rng, 0.7) ? [product.id, old.variationId] : [product.id, pick(rng, product.variations).id];
}

function riderBase(world: World, index: number): Omit<RiderPlan, 'assignments' | 'returns' | 'exchanges' | 'checks'> {
  const id = FIRST_RIDER_ID + index;
  const rng = rngFor(world.seed, STREAM.rider, id);
  const country = weighted(rng, world.countryOdds);
  const companyId = weighted(rng, world.companyOdds);
  const joinedAt = world.anchor - int(rng, 20, HISTORY_DAYS) * DAY - int(rng, 0, 86399) * SECOND;
  return { index, id, name: personName(rng), companyId, country, joinedAt };
}

/** Simulates a rider's equipment history: an onboarding kit, later hand-outs, returns and exchanges. */
function planAssignments(world: World, riderId: number, joinedAt: number, ids: IdCursor): Pick<RiderPlan, 'assignments' | 'returns' | 'exchanges'> {
  const rng = rngFor(world.seed, STREAM.assignments, riderId);
  const drafts: Draft[] = [];
  const span = world.anchor - HOUR - joinedAt;
  const kit = int(rng, 2, 5); // handed out together on the first day
  const kitBy = pick(rng, world.appUsers).id;
  const kitMethod: 0 | 1 = chance(rng, 0.6) ? 1 : 0;
  const initial = int(rng, 4, 13);
  for (let i = 0; i < initial; i++) {
    const [product, variation] = drawProduct(rng, world);
    const onboarding = i < kit;
    drafts.push({
      productId: product.id,
      variationId: variation.id,
      assignedAt: onboarding ? joinedAt : joinedAt + Math.floor((rng() * span) / SECOND) * SECOND,
      assignedBy: onboarding ? kitBy : pick(rng, world.appUsers).id,
      method: onboarding ? kitMethod : chance(rng, 0.5) ? 1 : 0,
      type: 'assign',
      depth: 0,
      deletedAt: null,
    });
  }

  // Decide each draft's fate; exchanges append their replacement, which gets its own fate in turn.
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i];
    const left = world.anchor - d.assignedAt;
    const r = rng();
    if (left < 2 * DAY || r < 0.5) continue; // still with the rider
    const endsAt = d.assignedAt + int(rng, 1, Math.min(Math.floor(left / HOUR) - 1, 300 * 24)) * HOUR;
    d.deletedAt = endsAt;
    if (r < 0.82 || d.depth >= 2) {
      // Most returns are recorded; a few items were just soft-deleted (e.g. cleaned up by an admin).
      d.returned = chance(rng, 0.94) ? { by: pick(rng, world.appUsers).id, condition: weighted(rng, RETURN_CONDITIONS) } : null;
      continue;
    }
    const [exchangeType, replacementType] = weighted(rng, EXCHANGE_KINDS);
    const [productId, variationId] = replacementFor(rng, world, d, exchangeType);
    const by = pick(rng, world.appUsers).id;
    const to: Draft = { productId, variationId, assignedAt: endsAt, assignedBy: by, method: chance(rng, 0.5) ? 1 : 0, type: 'exchange', depth: d.depth + 1, deletedAt: null };
    d.exchange = { to, exchangeType, replacementType, by };
    drafts.push(to);
  }

  // Ids follow time within the rider (the sort is stable, so ties keep creation order).
  drafts.sort((a, b) => a.assignedAt - b.assignedAt);
  for (const d of drafts) d.id = ++ids.assignment;
  const idOf = (d: Draft): number => {
    if (d.id === undefined) throw new Error('seedDemo: draft assignment without an id');
    return d.id;
  };
  const assignments: Assignment[] = [];
  const returns: ProductReturn[] = [];
  const exchanges: Exchange[] = [];
  for (const d of drafts) {
    const id = idOf(d);
    assignments.push({ id, productId: d.productId, variationId: d.variationId, assignedAt: d.assignedAt, assignedBy: d.assignedBy, method: d.method, type: d.type, deletedAt: d.deletedAt });
    if (d.deletedAt === null) continue;
    if (d.returned) returns.push({ id: ++ids.return, assignmentId: id, returnedAt: d.deletedAt, returnedBy: d.returned.by, condition: d.returned.condition });
    const e = d.exchange;
    if (e) {
      exchanges.push({ id: ++ids.exchange, oldAssignmentId: id, newAssignmentId: idOf(e.to), exchangedAt: d.deletedAt, exchangeType: e.exchangeType, replacementType: e.replacementType, processedBy: e.by });
    }
  }
  return { assignments, returns, exchanges };
}

function planChecks(world: World, riderId: number, country: Country, joinedAt: number, ids: IdCursor): Check[] {
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
    return { id, patrollerId: pick(rng, country.patrollers), checkedAt, idValid, plateValid: !chance(rng, 0.1), stickerValid: !chance(rng, 0.1), note, images };
  });
}

/** Running id counters: every pass walks the riders in the same order, so ids come out the same. */
interface IdCursor {
  assignment: number;
  return: number;
  exchange: number;
  check: number;
}


function* walkRiders(world: World, riders: number, needs: { assignments?: boolean; checks?: boolean }, progress: Progress): Generator<RiderPlan> {
  const ids: IdCursor = { assignment: 0, return: 0, exchange: 0, check: 0 };
  for (let index = 0; index < riders; index++) {
    const base = riderBase(world, index);
    const history = needs.assignments ? planAssignments(world, base.id, base.joinedAt, ids) : { assignments: [], returns: [], exchanges: [] };
    const checks = needs.checks ? planChecks(world, base.id, base.country, base.joinedAt, ids) : [];
    progress.done = index;
    yield { ...base, ...history, checks };
  }
  progress.done = riders;
}

// ---------------------------------------------------------------------------------------------
// Row generators, one per table. Each yields COPY text lines.

function* countryRows(world: World) {
  for (const c of world.countries) yield row([c.id, c.code, text(c.name)]);
}

function* namedRows(items: readonly Person[]) {
  for (const p of items) yield row([p.id, text(p.name)]);
}

function* productRows(world: World) {
  for (const p of world.products) yield row([p.id, text(p.name), p.categoryId, text(p.imageUrl), p.exchangeAfterDays]);
}

function* variationRows(world: World) {
  for (const p of world.products) for (const v of p.variations) yield row([v.id, v.productId, text(v.name)]);
}

function* questionRows(world: World) {
  for (const q of world.questions) yield row([q.id, q.countryId, text(q.text), q.type, text(q.category)]);
}

function* questionAnswerRows(world: World) {
  for (const q of world.questions) {
    for (const c of q.choices) yield row([q.id, c.position, text(c.name), text(c.nameAr), c.score, text(c.jump), textArray(c.skip)]);
  }
}

// The item counts the assignments trigger would keep, written with the rider (the trigger is off
// during the load), so riders are copied once, frozen, and never updated afterwards.
function* riderRows(world: World, riders: number, progress: Progress) {
  for (const r of walkRiders(world, riders, { assignments: true }, progress)) {
    const active = r.assignments.filter((a) => a.deletedAt === null).length;
    yield row([r.id, text(r.name), r.companyId, r.country.id, active, r.assignments.length - active]);
  }
}

function* assignmentRows(world: World, riders: number, progress: Progress) {
  for (const r of walkRiders(world, riders, { assignments: true }, progress)) {
    for (const a of r.assignments) {
      yield row([a.id, r.id, a.productId, a.variationId, timestamp(a.assignedAt), a.assignedBy, a.method, a.type, a.deletedAt === null ? NULL : timestamp(a.deletedAt)]);
    }
  }
}

function* returnRows(world: World, riders: number, progress: Progress) {
  for (const r of walkRiders(world, riders, { assignments: true }, progress)) {
    for (const x of r.returns) yield row([x.id, x.assignmentId, timestamp(x.returnedAt), x.returnedBy, text(x.condition)]);
  }
}

function* exchangeRows(world: World, riders: number, progress: Progress) {
  for (const r of walkRiders(world, riders, { assignments: true }, progress)) {
    for (const e of r.exchanges) {
      yield row([e.id, e.oldAssignmentId, e.newAssignmentId, timestamp(e.exchangedAt), text(e.exchangeType), e.replacementType, e.processedBy]);
    }
  }
}


function* checkRows(world: World, riders: number, progress: Progress) {
  for (const r of walkRiders(world, riders, { checks: true }, progress)) {
    for (const c of r.checks) {
      yield row([c.id, r.id, c.patrollerId, timestamp(c.checkedAt), bool(c.idValid), bool(c.plateValid), bool(c.stickerValid), nullableText(c.note), textArray(c.images)]);
    }
  }
}

/** 0-3 items per check, chosen among the assignments the rider held at the time of the check. */
function* checkItemRows(world: World, riders: number, progress: Progress) {
  for (const r of walkRiders(world, riders, { assignments: true, checks: true }, progress)) {
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
      if (q.text === 'ID number as shown') return `${json(`784-${int(rng, 1970, 2005)}-${int(rng, 1000000, 9999999)}-${int(rng, 1, 9)}`)}\t${NULL}\t${NULL}`;
      return `${pick(rng, REMARKS_JSON)}\t${NULL}\t${NULL}`;
    }
    case 'PHOTO':
      return `${NULL}\thttps://cdn.example.com/patrol/${checkId}/q${q.id}.jpg\t${NULL}`;
  }
}

/** 10-20 answers per check, to an ordered subset of the questions of the rider's country. */
function* checkAnswerRows(world: World, riders: number, progress: Progress) {
  for (const r of walkRiders(world, riders, { checks: true }, progress)) {
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

// ---------------------------------------------------------------------------------------------
// Loading (with bulk-load.ts).

const TABLES = [
  'countries', 'companies', 'app_users', 'patrollers', 'product_categories', 'products', 'product_variations',
  'questions', 'question_answers', 'riders', 'assignments', 'product_returns', 'product_exchanges',
  'patrol_checks', 'patrol_check_items', 'patrol_check_answers',
] as const;

// companies is referenced from outside the data (API tokens and supervisors limited to one 3PL), so
// it cannot be truncated; its six rows are loaded without FREEZE.
const TRUNCATED = TABLES.filter((table) => table !== 'companies');
/** Derived from the seeded tables by triggers, so truncated with them and rebuilt once at the end. */
const DERIVED = ['patrol_check_questioners', 'rider_list_entries', 'rider_list_blocks'] as const;
/** Triggers that would redo per statement what the load does once at the end. */
const ANSWER_TRIGGERS = ['insert', 'update', 'delete'].map((op) => `patrol_check_answers_${op}_questioner`);
const ENTRY_TRIGGERS = ['insert', 'update', 'delete'].map((op) => `assignments_${op}_rider_list_entries`);

/** One table's rows, by COPY: the tables truncated in the load's transaction are written frozen. */
function copyTable(ctx: LoadContext, table: (typeof TABLES)[number], columns: readonly string[], rows: Iterable<string>, progress?: Progress): Promise<number> {
  return copyRows(ctx, table, columns, rows, { freeze: (TRUNCATED as readonly string[]).includes(table), progress });
}

/** The seed writes fixed ids from 1 (riders from 100001), so it needs every table empty. */
async function assertEmpty(client: ClientBase): Promise<void> {
  const riders = await client.query('SELECT 1 FROM riders LIMIT 1');
  if ((riders.rowCount ?? 0) > 0) throw new Error('seedDemo: table riders already has rows; the demo seed needs a freshly migrated, empty database');
  const { rows } = await client.query<{ table: string }>(TABLES.map((t) => `SELECT '${t}' AS table WHERE EXISTS (SELECT 1 FROM ${t})`).join(' UNION ALL '));
  if (rows.length > 0) throw new Error(`seedDemo: tables ${rows.map((r) => r.table).join(', ')} already have rows; the demo seed needs a freshly migrated, empty database`);
}

/**
 * Fills a freshly migrated, empty database with a deterministic demo fleet: the same options give
 * byte-identical data. Runs in one transaction of its own (so do not call it inside another one),
 * ANALYZEs the tables, and returns the number of rows written per table.
 */
export async function seedDemo(client: ClientBase, options: DemoOptions): Promise<Record<string, number>> {
  const { riders, seed } = options;
  if (!Number.isSafeInteger(riders) || riders < 1) throw new Error(`seedDemo: riders must be a positive integer, got ${riders}`);
  if (!Number.isSafeInteger(seed)) throw new Error(`seedDemo: seed must be an integer, got ${seed}`);
  await assertEmpty(client);

  const ctx: LoadContext = { client, log: options.log ?? (() => undefined), verbose: riders >= 10000 };
  const started = performance.now();
  const anchor = options.anchor ?? DEMO_ANCHOR;
  if (!Number.isSafeInteger(anchor) || anchor % SECOND !== 0) throw new Error(`seedDemo: anchor must be a whole second in ms, got ${anchor}`);
  const world = buildWorld(seed >>> 0, anchor);
  const progress = (): Progress => ({ done: 0, total: riders });
  const counts: Record<string, number> = {};

  await client.query('BEGIN');
  try {
    // The tables are empty (checked above); truncating them here is what allows COPY FREEZE.
    await client.query(`TRUNCATE ${[...TRUNCATED, ...DERIVED].join(', ')}`);
    const deferred = await deferConstraints(client, TABLES);

    counts.countries = await copyTable(ctx, 'countries', ['id', 'code', 'name'], countryRows(world));
    counts.companies = await copyTable(ctx, 'companies', ['id', 'name'], namedRows(world.companies));
    counts.app_users = await copyTable(ctx, 'app_users', ['id', 'name'], namedRows(world.appUsers));
    counts.patrollers = await copyTable(ctx, 'patrollers', ['id', 'name'], namedRows(world.patrollers));
    counts.product_categories = await copyTable(ctx, 'product_categories', ['id', 'name'], namedRows(world.categories));
    counts.products = await copyTable(ctx, 'products', ['id', 'name', 'category_id', 'image_url', 'exchange_after_days'], productRows(world));
    counts.product_variations = await copyTable(ctx, 'product_variations', ['id', 'product_id', 'name'], variationRows(world));
    counts.questions = await copyTable(ctx, 'questions', ['id', 'country_id', 'text', 'question_type', 'category'], questionRows(world));
    counts.question_answers = await copyTable(ctx, 'question_answers', ['question_id', 'position', 'name', 'name_ar', 'score', 'jump', 'skip'], questionAnswerRows(world));

    let p = progress();
    // Kept data (item counts, list blocks and entries, questioner arrays) is built once at the end.
    await client.query('ALTER TABLE riders DISABLE TRIGGER riders_list_blocks');
    counts.riders = await copyTable(ctx, 'riders', ['id', 'name', 'company_id', 'country_id', 'active_items', 'returned_items'], riderRows(world, riders, p), p);
    await client.query('ALTER TABLE assignments DISABLE TRIGGER assignments_count_items');
    for (const trigger of ENTRY_TRIGGERS) await client.query(`ALTER TABLE assignments DISABLE TRIGGER ${trigger}`);
    for (const trigger of ANSWER_TRIGGERS) await client.query(`ALTER TABLE patrol_check_answers DISABLE TRIGGER ${trigger}`);
    p = progress();
    counts.assignments = await copyTable(
      ctx, 'assignments',
      ['id', 'rider_id', 'product_id', 'variation_id', 'assigned_at', 'assigned_by', 'assign_method', 'assign_type', 'deleted_at'],
      assignmentRows(world, riders, p), p,
    );
    p = progress();
    counts.product_returns = await copyTable(ctx, 'product_returns', ['id', 'assignment_id', 'returned_at', 'returned_by', 'condition'], returnRows(world, riders, p), p);
    p = progress();
    counts.product_exchanges = await copyTable(
      ctx, 'product_exchanges',
      ['id', 'old_assignment_id', 'new_assignment_id', 'exchanged_at', 'exchange_type', 'replacement_type', 'processed_by'],
      exchangeRows(world, riders, p), p,
    );
    p = progress();
    counts.patrol_checks = await copyTable(
      ctx, 'patrol_checks',
      ['id', 'rider_id', 'patroller_id', 'checked_at', 'id_valid', 'plate_valid', 'sticker_valid', 'fake_id_note', 'fake_id_images'],
      checkRows(world, riders, p), p,
    );
    p = progress();
    counts.patrol_check_items = await copyTable(ctx, 'patrol_check_items', ['check_id', 'position', 'assignment_id', 'status', 'image_url'], checkItemRows(world, riders, p), p);
    p = progress();
    counts.patrol_check_answers = await copyTable(
      ctx, 'patrol_check_answers',
      ['check_id', 'position', 'question_id', 'answer', 'image_url', 'score'],
      checkAnswerRows(world, riders, p), p,
    );

    await client.query('ALTER TABLE riders ENABLE TRIGGER riders_list_blocks');
    await client.query('ALTER TABLE assignments ENABLE TRIGGER assignments_count_items');
    for (const trigger of ENTRY_TRIGGERS) await client.query(`ALTER TABLE assignments ENABLE TRIGGER ${trigger}`);
    for (const trigger of ANSWER_TRIGGERS) await client.query(`ALTER TABLE patrol_check_answers ENABLE TRIGGER ${trigger}`);
    await restoreConstraints(ctx, deferred, TABLES);
    let rebuilt = performance.now();
    await client.query('SELECT patrol_check_questioners_rebuild()');
    await client.query('ANALYZE patrol_check_questioners');
    ctx.log(`questioner arrays: rebuilt in ${seconds(rebuilt)}`);
    rebuilt = performance.now();
    await client.query('SELECT rider_list_blocks_rebuild()');
    await client.query('SELECT rider_list_entries_rebuild()');
    await client.query('ANALYZE rider_list_blocks, rider_list_entries');
    ctx.log(`rider list blocks and entries: rebuilt in ${seconds(rebuilt)}`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  ctx.log(`demo seed (riders=${riders}, seed=${seed}) done in ${seconds(started)}`);
  return counts;
}
