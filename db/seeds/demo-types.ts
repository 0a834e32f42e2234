// The demo's plain data types, apart from the modules that make them: riders, their assignments and
// checks, countries and their questionnaires refer to one another; their modules need not.

export type QuestionType = 'MULTIPLE_CHOICE:SINGLE' | 'MULTIPLE_CHOICE:MULTIPLE' | 'TEXT' | 'PHOTO';

export interface Choice {
  position: number;
  name: string;
  nameAr: string;
  score: number;
  jump: string; // '' = go on to the next question
  skip: string[];
  json: string; // the COPY-ready jsonb text of this answer when chosen alone
}

export interface Question {
  id: number;
  countryId: number;
  text: string;
  type: QuestionType;
  category: string;
  choices: Choice[];
  multiJson: Map<number, string>; // MULTIPLE: COPY-ready jsonb arrays by bitmask of chosen choices
}

export interface Country {
  id: number;
  code: string;
  name: string;
  weight: number; // share of riders
  patrollers: number[];
  questions: Question[];
}

export interface Assignment {
  id: number;
  productId: number;
  variationId: number;
  assignedAt: number;
  assignedBy: number;
  method: 0 | 1; // 0 = Manual, 1 = Physical
  type: 'assign' | 'exchange';
  deletedAt: number | null;
}

export interface ProductReturn {
  id: number;
  assignmentId: number;
  returnedAt: number;
  returnedBy: number;
  condition: string;
}

export interface Exchange {
  id: number;
  oldAssignmentId: number;
  newAssignmentId: number;
  exchangedAt: number;
  exchangeType: string;
  replacementType: 'Lost' | 'Accident' | 'Exchange';
  processedBy: number;
}

export interface Check {
  id: number;
  patrollerId: number;
  checkedAt: number;
  idValid: boolean;
  plateValid: boolean;
  stickerValid: boolean;
  note: string | null;
  images: string[];
}

export interface RiderPlan {
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

/** Running id counters: every pass walks the riders in the same order, so ids come out the same. */
export interface IdCursor {
  assignment: number;
  return: number;
  exchange: number;
  check: number;
}
