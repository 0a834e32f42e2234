import type { Knex } from 'knex';
import { sql } from '../db/knex';
import { applyScope, type Scope } from '../filters/scope';
import { dayText } from '../wire/sql-fragments';
import { cappedCount } from '../queries/keyset';
import { selected, type Selection } from './owners';
import { COMPANY_RULE_NAMES, type AttentionQuery, type RiderRule, type Rule, type RuleName } from './index';

// What supervisors record when they handle a row of "Needs attention" (access.attention_handled,
// migration 014): the service's own data, written on the primary, never the domain tables. A
// handling's subject is a rider, or a 3PL for a rule over 3PLs (its `subject`).

export const at = (expression: string) => `to_char(${expression}, 'YYYY-MM-DD HH24:MI')`;

/** The subject of a rule's handling in the scope: a rider (r) or a 3PL (c), with its name; no row when out of scope. */
export function subjectInScope(rule: Rule, subjectId: string, scope: Scope) {
  if (rule.subject === '3pl') {
    const builder = sql('companies as c').where('c.id', subjectId).select('c.id', 'c.name');
    return scope.company_id ? builder.where('c.id', scope.company_id) : builder;
  }
  return applyScope(sql('riders as r').where('r.id', subjectId).select('r.id', 'r.name'), scope);
}

export interface NewHandling {
  rule: RuleName;
  subjectId: string;
  /** One row, `evidence_at`: what the rule shows for the subject now (no row: not listed). */
  evidence: Knex.QueryBuilder;
  note: string;
  until: string | null;
  supervisorId: string;
}

/**
 * Records a handling of what the rule shows now, in one statement (the evidence read and written in
 * full precision, never through a JavaScript Date). The subject's live handling, if it no longer hides
 * the row (newer evidence, or its "until" day passed), is superseded first; one that still hides it
 * makes this one store nothing (migration 020's index: at most one live handling per row, whoever
 * saves at the same time). No row: the subject is not listed, or is handled already (handlingOf says
 * by whom).
 */
export function insertHandling(h: NewHandling) {
  return sql.raw(
    `WITH e AS (?),
     retired AS (
       UPDATE access.attention_handled h SET superseded_at = now() FROM e
        WHERE h.rule = ? AND h.subject_id = ? AND h.undone_at IS NULL AND h.superseded_at IS NULL AND e.evidence_at IS NOT NULL
          AND NOT (h.evidence_at >= e.evidence_at AND (h.until IS NULL OR h.until >= current_date))
       RETURNING h.id)
     INSERT INTO access.attention_handled (rule, subject_id, evidence_at, note, until, handled_by, assigned_to)
     SELECT ?::text, ?::bigint, e.evidence_at, ?::text, ?::date, ?::bigint,
            (SELECT o.assigned_to FROM access.attention_owners o WHERE o.rule = ?::text AND o.subject_id = ?::bigint)
       FROM e CROSS JOIN (SELECT count(*) FROM retired) AS r -- the old one retired before the new one is checked
      WHERE e.evidence_at IS NOT NULL
     ON CONFLICT (rule, subject_id) WHERE undone_at IS NULL AND superseded_at IS NULL DO NOTHING
     RETURNING id`,
    [h.evidence, h.rule, h.subjectId, h.rule, h.subjectId, h.note, h.until, h.supervisorId, h.rule, h.subjectId],
  );
}

/** The most rows one batch may cover: a batch past it is refused with a word to narrow the filters. */
export const BATCH_MAX = 10_000;

/** The listed rows the selection keeps (handled ones left out), as the rule's list filters them. */
function selectedRows(rule: RiderRule, q: AttentionQuery, selection: Selection) {
  return selected(rule.list.core({ ...q, hideHandled: true }), rule, selection);
}

/** The subjects and evidence of a rider rule's listed rows (hideHandled), as a batch covers them. */
function picked(rule: RiderRule, q: AttentionQuery, selection: Selection) {
  return selectedRows(rule, q, selection).select(sql.raw(`${rule.list.subject} AS subject`), sql.raw('? AS evidence', [rule.evidence(q)]));
}

/** How many rows a batch would cover, up to BATCH_MAX + 1. */
export function batchCount(rule: RiderRule, q: AttentionQuery, selection: Selection) {
  return cappedCount(selectedRows(rule, q, selection), BATCH_MAX);
}

export interface NewBatch {
  rule: RiderRule;
  /** Today's rows of the scope; `riderIds`: only those ticked. */
  q: AttentionQuery;
  /** Only the rows the list's filters select. */
  selection: Selection;
  note: string;
  until: string | null;
  supervisorId: string;
}

/**
 * Records a batch in one statement: a handling of each listed row (superseding a live one that no
 * longer hides its row, as insertHandling does; a row handled meanwhile is left out), then the batch
 * with how many it covered. Returns the batch's id and rows.
 */
export function insertBatch(b: NewBatch) {
  const name = b.rule.name;
  return sql.raw(
    `WITH b AS (SELECT nextval(pg_get_serial_sequence('access.attention_batches', 'id')) AS id),
     picked AS (SELECT DISTINCT ON (subject) subject, evidence FROM (?) s WHERE evidence IS NOT NULL ORDER BY subject, evidence DESC),
     retired AS (
       UPDATE access.attention_handled h SET superseded_at = now() FROM picked p
        WHERE h.rule = ? AND h.subject_id = p.subject AND h.undone_at IS NULL AND h.superseded_at IS NULL
          AND NOT (h.evidence_at >= p.evidence AND (h.until IS NULL OR h.until >= current_date))
       RETURNING h.id),
     ins AS (
       INSERT INTO access.attention_handled (rule, subject_id, evidence_at, note, until, handled_by, batch_id, assigned_to)
       SELECT ?::text, p.subject, p.evidence, ?::text, ?::date, ?::bigint, b.id,
              (SELECT o.assigned_to FROM access.attention_owners o WHERE o.rule = ?::text AND o.subject_id = p.subject)
         FROM picked p CROSS JOIN b CROSS JOIN (SELECT count(*) FROM retired) AS r -- the old ones retired first
       ON CONFLICT (rule, subject_id) WHERE undone_at IS NULL AND superseded_at IS NULL DO NOTHING
       RETURNING 1)
     INSERT INTO access.attention_batches (id, rule, note, until, handled_by, rows) OVERRIDING SYSTEM VALUE
     SELECT b.id, ?::text, ?::text, ?::date, ?::bigint, (SELECT count(*) FROM ins) FROM b
     RETURNING id, rows`,
    [picked(b.rule, b.q, b.selection), name, name, b.note, b.until, b.supervisorId, name, name, b.note, b.until, b.supervisorId],
  );
}

/** `AND` the rider of `alias`.subject_id is of the scope's 3PL (one `?`: the company), or nothing when unscoped. */
const riderOfScope = (alias: string, scope: Scope) =>
  scope.company_id ? `AND EXISTS (SELECT 1 FROM riders r WHERE r.id = ${alias}.subject_id AND r.company_id = ?)` : '';

/**
 * A batch of the scope with nothing left to undo (its rows in the scope all undone, or handled again
 * since): its rule, and who undid the last of them and when. No row: no such batch in the scope, or
 * rows of it still live.
 */
export function batchNothingToUndo(id: string, scope: Scope) {
  const company = scope.company_id ? [scope.company_id] : [];
  // The batch's last undone row first, then its supervisor: one look-up, not one per row.
  return sql.raw(
    `SELECT x.rule, u.username AS undone_by, ${at('x.undone_at')} AS undone_at
       FROM (SELECT b.rule, h.undone_at, h.undone_by
               FROM access.attention_batches b
               JOIN access.attention_handled h ON h.batch_id = b.id ${riderOfScope('h', scope)}
              WHERE b.id = ?
                AND NOT EXISTS (SELECT 1 FROM access.attention_handled l
                                 WHERE l.batch_id = b.id AND l.undone_at IS NULL AND l.superseded_at IS NULL ${riderOfScope('l', scope)})
              ORDER BY h.undone_at DESC NULLS LAST
              LIMIT 1) AS x
       LEFT JOIN access.supervisors u ON u.id = x.undone_by`,
    [...company, id, ...company],
  );
}

/**
 * Undoes a batch's handlings that are still live and in the scope, and marks the batch undone once
 * none is left; returns the batch's id, rule and how many were undone (no row: no such batch, or undone).
 */
export function undoBatch(id: string, supervisorId: string, scope: Scope) {
  const inScope = riderOfScope('h', scope);
  return sql.raw(
    `WITH u AS (
       UPDATE access.attention_handled h SET undone_at = now(), undone_by = ?
        WHERE h.batch_id = ? AND h.undone_at IS NULL AND h.superseded_at IS NULL ${inScope}
       RETURNING h.id),
     left_live AS (
       SELECT count(*) AS n FROM access.attention_handled h
        WHERE h.batch_id = ? AND h.undone_at IS NULL AND h.superseded_at IS NULL AND h.id NOT IN (SELECT id FROM u)),
     done AS (
       UPDATE access.attention_batches SET undone_at = now(), undone_by = ?
        WHERE id = ? AND undone_at IS NULL AND (SELECT n FROM left_live) = 0
       RETURNING id)
     SELECT b.id, b.rule, (SELECT count(*) FROM u)::int AS undone FROM access.attention_batches b
      WHERE b.id = ? AND b.undone_at IS NULL AND (SELECT count(*) FROM u) > 0`,
    [supervisorId, id, ...(scope.company_id ? [scope.company_id] : []), id, supervisorId, id, id],
  );
}

/** A rule's batches with handlings still live in the scope, newest first (at most 20): who, when, the note, how many. */
export function batchesOfRule(rule: Rule, scope: Scope) {
  const live = sql('access.attention_handled as h')
    .whereRaw('h.batch_id = b.id')
    .whereNull('h.undone_at')
    .whereNull('h.superseded_at')
    .modify((q) => {
      if (scope.company_id)
        q.whereExists(sql('riders as r').whereRaw('r.id = h.subject_id').where('r.company_id', scope.company_id).select(sql.raw('1')));
    })
    .count();
  return sql('access.attention_batches as b')
    .join('access.supervisors as s', 's.id', 'b.handled_by')
    .where('b.rule', rule.name)
    .whereNull('b.undone_at')
    .select(
      'b.id',
      'b.note',
      'b.rows',
      's.username as handled_by',
      sql.raw(`${at('b.handled_at')} AS handled_at`),
      sql.raw(`${dayText('b.until')} AS until`),
    )
    .select(sql.raw('(?)::int AS live', [live]))
    .whereRaw('(?) > 0', [live])
    .orderBy('b.id', 'desc')
    .limit(20);
}

/** The subject's live handling of the rule (who, when, the note), if any. */
export function liveHandling(rule: RuleName, subjectId: string) {
  return withPeople(sql('access.attention_handled as h'))
    .where({ 'h.rule': rule, 'h.subject_id': subjectId })
    .whereNull('h.undone_at')
    .whereNull('h.superseded_at');
}

/** The handling `id` (h) when its subject is in the scope. */
export function handlingInScope(id: string, scope: Scope) {
  const builder = sql('access.attention_handled as h').where('h.id', id);
  if (scope.company_id) {
    builder.whereRaw(
      `CASE WHEN h.rule = ANY (?) THEN h.subject_id = ? ELSE EXISTS (SELECT 1 FROM riders r WHERE r.id = h.subject_id AND r.company_id = ?) END`,
      [[...COMPANY_RULE_NAMES], scope.company_id, scope.company_id],
    );
  }
  return builder;
}

/** A handling of the scope that is no longer live: undone (by whom, when) or replaced by a later note. No row: none such. */
export function handlingNotLive(id: string, scope: Scope) {
  return handlingInScope(id, scope)
    .where((q) => q.whereNotNull('h.undone_at').orWhereNotNull('h.superseded_at'))
    .leftJoin('access.supervisors as u', 'u.id', 'h.undone_by')
    .select('h.rule', 'u.username as undone_by', sql.raw(`${at('h.undone_at')} AS undone_at`));
}

/** Marks one live handling undone, when its subject is in the scope; returns its id and rule. */
export function undoHandling(id: string, supervisorId: string, scope: Scope) {
  const inScope = handlingInScope(id, scope).whereNull('h.undone_at').whereNull('h.superseded_at').select('h.id');
  return sql('access.attention_handled')
    .whereIn('id', inScope)
    .update({ undone_at: sql.fn.now(), undone_by: supervisorId })
    .returning(['id', 'rule']);
}

/** A handling's (h) notes written beside it, oldest first, as JSON: [{ note, by, at }]. */
const addedNotes = sql.raw(
  `(SELECT coalesce(json_agg(json_build_object('note', n.note, 'by', ns.username, 'at', ${at('n.written_at')}) ORDER BY n.id), '[]')
      FROM access.supervisor_notes n JOIN access.supervisors ns ON ns.id = n.written_by
     WHERE n.handling_id = h.id) AS added`,
);

/** Columns of a handling (h), who did it (s, u) and the notes written beside it (migration 032). */
const handlingColumns = [
  'h.id',
  'h.rule',
  'h.subject_id',
  'h.note',
  's.username as handled_by',
  sql.raw(`${at('h.handled_at')} AS handled_at`),
  sql.raw(`${dayText('h.until')} AS until`),
  'u.username as undone_by',
  'w.username as assigned_to',
  sql.raw(`${at('h.undone_at')} AS undone_at`),
  addedNotes,
];

function withPeople(builder: Knex.QueryBuilder) {
  return builder
    .join('access.supervisors as s', 's.id', 'h.handled_by')
    .leftJoin('access.supervisors as u', 'u.id', 'h.undone_by')
    .leftJoin('access.supervisors as w', 'w.id', 'h.assigned_to')
    .select(handlingColumns);
}

export const HANDLED_PAGE = 50;

/**
 * A rule's live handlings (neither undone nor superseded), newest first, in the scope, with the subject's name and 3PL: one
 * page of HANDLED_PAGE (+1, to tell whether there is another), from before `before` (an id) if given.
 */
export function handledOfRule(rule: Rule, scope: Scope, before?: string) {
  const builder = withPeople(sql('access.attention_handled as h'))
    .where('h.rule', rule.name)
    .whereNull('h.undone_at')
    .whereNull('h.superseded_at')
    .orderBy('h.id', 'desc')
    .limit(HANDLED_PAGE + 1);
  if (before) builder.where('h.id', '<', before);
  if (rule.subject === '3pl') {
    builder.join('companies as c', 'c.id', 'h.subject_id').select('c.name as subject_name', 'c.name as company');
    if (scope.company_id) builder.where('c.id', scope.company_id);
    return builder;
  }
  builder
    .join('riders as r', 'r.id', 'h.subject_id')
    .join('companies as c', 'c.id', 'r.company_id')
    .select('r.name as subject_name', 'c.name as company');
  return applyScope(builder, scope);
}

/** Notes the rider page shows at once; older ones are a page further (notes_before). */
export const HISTORY_PAGE = 20;

/**
 * The handlings of a rider (undone ones too), newest first, HISTORY_PAGE of them (and one more, which
 * says there are older): those before the handling `before` when given. The rider page's history.
 */
export function riderHistory(riderId: string, before?: string) {
  const builder = withPeople(sql('access.attention_handled as h'))
    .where('h.subject_id', riderId)
    .whereNotIn('h.rule', [...COMPANY_RULE_NAMES])
    .orderBy('h.id', 'desc')
    .limit(HISTORY_PAGE + 1);
  return before ? builder.where('h.id', '<', before) : builder;
}
