import type { Response } from 'express';
import type { KeptNote } from '../auth/sign-in';
import { render } from '../html/render';
import { links } from '../html/links';
import type { RegisteredRule as Rule } from '../rules';

/** Why a note's form is drawn again: refused fields, handled meanwhile, gone from its list, or kept through a sign-in. */
export interface NoteFormWhy {
  title: string;
  errors?: Record<string, string>;
  /** The live handling that was saved first (its id, who, when, the note), with the subject's name. */
  handledBy?: Record<string, unknown>;
  /** The subject that left the rule's list while the note was typed. */
  left?: { name: string };
  kept?: boolean;
}

/**
 * A note's form drawn again with what was typed (views/admin/handle-retry.ejs), and why, with each way on
 * that can still take the text: Save where it posted; a row handled meanwhile, beside that handling; a
 * rider's row handled meanwhile or gone from its list, on the rider (src/admin/notes.ts).
 */
export function noteForm(
  res: Response,
  /** The rule the note was typed under (none: a note on a rider, from the rider's page). */
  rule: Rule | undefined,
  /** Where it posts, its row, where it goes back to, and what was typed (what a kept note holds too). */
  fields: KeptNote,
  why: NoteFormWhy,
  status: number,
): Promise<void> {
  const { title, errors = {}, handledBy, left, kept = false } = why;
  const onRider = rule?.subject === 'rider' && (handledBy || left) ? links.riderNotes(fields.subject) : undefined;
  const beside = handledBy ? links.handlingNotes(String(handledBy.id)) : undefined;
  // Until: only where the form marks a row handled.
  const marks = !handledBy && !left && /\/handled$/.test(fields.action);
  const locals = {
    ...fields,
    title,
    errors,
    handledBy,
    left,
    kept,
    ruleTitle: rule?.title,
    rule: rule?.name ?? '',
    onRider,
    beside,
    marks,
  };
  // form: loads the Calendar button of the "Until" field (partials/bottom).
  return render(res, 'handle-retry', { ...locals, section: 'attention', form: { fields: [{ control: 'date' }] } }, status);
}
