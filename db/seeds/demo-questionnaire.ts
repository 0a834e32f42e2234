// The questionnaire: each country asks an ordered subset of one bank of questions, with the choices
// of the multiple-choice ones (scores, jumps and skips to later questions).

import { json, row, text, textArray } from './bulk-load';

import { chance, int, pick, sampleOrdered, type Rng } from './demo-random';
import type { Choice, Country, Question, QuestionType } from './demo-types';

type ChoiceTemplate = readonly [name: string, nameAr: string, score: number];
const YES_NO: readonly ChoiceTemplate[] = [
  ['Yes', 'نعم', 2],
  ['No', 'لا', -2],
];

// The questionnaire bank; each country asks an ordered subset of it.
const QUESTION_BANK: ReadonlyArray<readonly [string, QuestionType, string, readonly ChoiceTemplate[]]> = [
  ['Is the rider wearing the company uniform?', 'MULTIPLE_CHOICE:SINGLE', 'Appearance', YES_NO],
  [
    'Condition of the uniform',
    'MULTIPLE_CHOICE:SINGLE',
    'Appearance',
    [
      ['Good', 'جيد', 2],
      ['Acceptable', 'مقبول', 0],
      ['Poor', 'سيئ', -2],
    ],
  ],
  ['Is the rider well groomed?', 'MULTIPLE_CHOICE:SINGLE', 'Appearance', YES_NO],
  [
    'Which uniform items are missing?',
    'MULTIPLE_CHOICE:MULTIPLE',
    'Appearance',
    [
      ['None', 'لا شيء', 1],
      ['T-shirt', 'قميص', -1],
      ['Jacket', 'سترة', -1],
      ['Cap', 'قبعة', -1],
    ],
  ],
  ['Photo of the rider in uniform', 'PHOTO', 'Appearance', []],
  ['Is the license plate clearly visible?', 'MULTIPLE_CHOICE:SINGLE', 'Vehicle', YES_NO],
  [
    'Vehicle condition',
    'MULTIPLE_CHOICE:SINGLE',
    'Vehicle',
    [
      ['Good', 'جيد', 2],
      ['Needs service', 'يحتاج صيانة', -1],
      ['Damaged', 'تالف', -3],
    ],
  ],
  ['Are the lights working?', 'MULTIPLE_CHOICE:SINGLE', 'Vehicle', YES_NO],
  [
    'Which vehicle issues were found?',
    'MULTIPLE_CHOICE:MULTIPLE',
    'Vehicle',
    [
      ['None', 'لا شيء', 1],
      ['Tyres worn', 'إطارات مهترئة', -1],
      ['Broken mirror', 'مرآة مكسورة', -1],
      ['Brake problem', 'مشكلة في الفرامل', -3],
      ['Lights', 'الأضواء', -1],
    ],
  ],
  ['Photo of the vehicle', 'PHOTO', 'Vehicle', []],
  ['Odometer reading', 'TEXT', 'Vehicle', []],
  ['Is the delivery box clean?', 'MULTIPLE_CHOICE:SINGLE', 'Equipment', YES_NO],
  [
    'Is the helmet worn correctly?',
    'MULTIPLE_CHOICE:SINGLE',
    'Equipment',
    [
      ['Yes', 'نعم', 2],
      ['No', 'لا', -2],
      ['No helmet', 'بدون خوذة', -5],
    ],
  ],
  [
    'Condition of the delivery box',
    'MULTIPLE_CHOICE:SINGLE',
    'Equipment',
    [
      ['Good', 'جيد', 2],
      ['Worn', 'مستهلك', 0],
      ['Damaged', 'تالف', -2],
      ['Missing', 'مفقود', -4],
    ],
  ],
  [
    'Which equipment is with the rider?',
    'MULTIPLE_CHOICE:MULTIPLE',
    'Equipment',
    [
      ['Helmet', 'خوذة', 1],
      ['Box', 'صندوق', 1],
      ['Bag', 'حقيبة', 1],
      ['Phone holder', 'حامل هاتف', 1],
      ['Power bank', 'شاحن متنقل', 1],
    ],
  ],
  ['Is the company sticker on the box?', 'MULTIPLE_CHOICE:SINGLE', 'Equipment', YES_NO],
  ['Photo of the delivery box', 'PHOTO', 'Equipment', []],
  ['Equipment remarks', 'TEXT', 'Equipment', []],
  ['Does the rider carry a valid ID?', 'MULTIPLE_CHOICE:SINGLE', 'Documents', YES_NO],
  [
    'Is the driving licence valid?',
    'MULTIPLE_CHOICE:SINGLE',
    'Documents',
    [
      ['Yes', 'نعم', 2],
      ['No', 'لا', -3],
      ['Expired', 'منتهي الصلاحية', -2],
    ],
  ],
  ['Is the vehicle registration available?', 'MULTIPLE_CHOICE:SINGLE', 'Documents', YES_NO],
  [
    'Which documents were shown?',
    'MULTIPLE_CHOICE:MULTIPLE',
    'Documents',
    [
      ['ID card', 'بطاقة الهوية', 1],
      ['Driving licence', 'رخصة القيادة', 1],
      ['Vehicle registration', 'استمارة المركبة', 1],
      ['Insurance', 'التأمين', 1],
    ],
  ],
  ['Photo of the ID card', 'PHOTO', 'Documents', []],
  ['ID number as shown', 'TEXT', 'Documents', []],
  ['Patroller remarks', 'TEXT', 'Documents', []],
];

/** Draws each country's questions from the bank (ids numbered from 1 across countries), filling in `country.questions`. */
export function buildQuestions(rng: Rng, countries: readonly Country[]): Question[] {
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
  return questions;
}

export function* questionRows(questions: readonly Question[]) {
  for (const q of questions) yield row([q.id, q.countryId, text(q.text), q.type, text(q.category)]);
}

export function* questionAnswerRows(questions: readonly Question[]) {
  for (const q of questions) {
    for (const c of q.choices) yield row([q.id, c.position, text(c.name), text(c.nameAr), c.score, text(c.jump), textArray(c.skip)]);
  }
}
