import { sql } from '../db/knex';
import { applyScope, type Scope } from '../filters/scope';
import { at, handlingInScope } from './handling';
import { COMPANY_RULE_NAMES, type RuleName } from './index';

// Supervisors' notes that mark nothing handled (access.supervisor_notes, migration 032): on a rider, or
// beside another supervisor's handling. What a supervisor typed always has somewhere to go: a row that
// left "Needs attention" while its note was typed, or was handled by someone else meanwhile.

/** Notes the rider page shows at once; older ones are a page further (rider_notes_before). */
export const NOTES_PAGE = 20;

export interface NewRiderNote {
  riderId: string;
  /** The point the note was typed under, if any. */
  rule: RuleName | null;
  note: string;
  supervisorId: string;
  scope: Scope;
}

/** Writes a note on a rider of the scope; returns the rider's id and name (no row: no such rider in the scope). */
export function insertRiderNote(n: NewRiderNote) {
  const rider = applyScope(sql('riders as r').where('r.id', n.riderId).select('r.id', 'r.name'), n.scope);
  return sql.raw(
    `WITH r AS (?),
     written AS (
       INSERT INTO access.supervisor_notes (rider_id, rule, note, written_by)
       SELECT r.id, ?::text, ?::text, ?::bigint FROM r RETURNING id)
     SELECT r.id, r.name, written.id AS note_id FROM r, written`,
    [rider, n.rule, n.note, n.supervisorId],
  );
}

/**
 * Writes a note beside a handling of the scope (live, undone or replaced: it is added to what that
 * handling says), on its rider too when its subject is one. Returns the handling's rule and subject and
 * who handled it (no row: no such handling in the scope).
 */
export function insertHandlingNote(handlingId: string, note: string, supervisorId: string, scope: Scope) {
  const handling = handlingInScope(handlingId, scope)
    .join('access.supervisors as s', 's.id', 'h.handled_by')
    .select('h.id', 'h.rule', 'h.subject_id', 's.username as handled_by');
  return sql.raw(
    `WITH h AS (?),
     written AS (
       INSERT INTO access.supervisor_notes (rider_id, handling_id, rule, note, written_by)
       SELECT CASE WHEN h.rule = ANY (?) THEN NULL ELSE h.subject_id END, h.id, h.rule, ?::text, ?::bigint FROM h
       RETURNING id)
     SELECT h.rule, h.subject_id, h.handled_by FROM h, written`,
    [handling, [...COMPANY_RULE_NAMES], note, supervisorId],
  );
}

/**
 * A rider's notes (those written beside a handling of the rider too), newest first: NOTES_PAGE of them
 * and one more, which says there are older; those before the note `before` when given.
 */
export function riderNotes(riderId: string, before?: string) {
  const builder = sql('access.supervisor_notes as n')
    .join('access.supervisors as s', 's.id', 'n.written_by')
    .leftJoin('access.attention_handled as h', 'h.id', 'n.handling_id')
    .leftJoin('access.supervisors as hs', 'hs.id', 'h.handled_by')
    .where('n.rider_id', riderId)
    .select('n.id', 'n.rule', 'n.note', 's.username as written_by', sql.raw(`${at('n.written_at')} AS written_at`), 'hs.username as beside')
    .orderBy('n.id', 'desc')
    .limit(NOTES_PAGE + 1);
  return before ? builder.where('n.id', '<', before) : builder;
}
