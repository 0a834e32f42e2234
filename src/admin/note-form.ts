import type { Response } from 'express';
import type { KeptNote } from '../auth/sign-in';
import { render } from '../html/render';
import type { RegisteredRule as Rule } from '../rules';

/**
 * A "Mark handled" form drawn again with what was typed (views/admin/handle-retry.ejs), and why: refused
 * fields (`errors`), handled meanwhile (`handledBy`), gone from the list (`left`), or kept through a sign-in (`kept`).
 */
export function noteForm(
  res: Response,
  rule: Rule,
  /** Where it posts, its row, where it goes back to, and what was typed (what a kept note holds too). */
  fields: KeptNote,
  why: { title: string; errors?: Record<string, string>; handledBy?: Record<string, unknown>; left?: { name: string }; kept?: boolean },
  status: number,
): Promise<void> {
  const { title, errors = {}, handledBy, left, kept = false } = why;
  // form: loads the Calendar button of the "Until" field (partials/bottom).
  const locals = { ...fields, title, errors, handledBy, left, kept, ruleTitle: rule.title, section: 'attention' };
  return render(res, 'handle-retry', { ...locals, form: { fields: [{ control: 'date' }] } }, status);
}
