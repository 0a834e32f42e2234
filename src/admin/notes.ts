import express, { type Request, type RequestHandler, type Response } from 'express';
import { body, matchedData, validationResult } from 'express-validator';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { HttpError } from '../http/errors';
import { redirectWithNotice } from '../html/render';
import { scopeOf } from '../html/scope';
import { links } from '../html/links';
import { adminPathOrNone } from '../html/urls';
import { RULE_NAMES, ruleNamed, type RuleName } from '../rules';
import * as notes from '../rules/notes';
import { noteCheck } from './note-checks';
import { noteFormGuard } from './form-body';
import { noteForm } from './note-form';
import { isId } from './selection';

// Notes that mark nothing handled (src/rules/notes.ts): on a rider, from the rider's page or from a note's
// form whose row left "Needs attention" or was handled meanwhile; beside another supervisor's handling.
// Signed-in supervisors only, with the session's CSRF token; a 3PL's supervisor writes on its riders only.

export interface NotesDeps {
  /** Where notes are written: the primary. */
  primary: Reader;
  /** The CSRF check of the sign-in (absent without sign-in: then no note can be written). */
  protect?: RequestHandler;
}

function supervisorOf(res: Response): { id: string } {
  const supervisor = res.locals.supervisor as { id: string } | undefined;
  if (!supervisor) throw new HttpError(403, 'Writing notes needs a signed-in supervisor (sign-in is off on this server).');
  return supervisor;
}

/** The form again, with the note as typed and why it was refused (400). */
function refused(req: Request, res: Response, subject: string, rule: RuleName | undefined, fallback: string): Promise<void> {
  const errors = Object.fromEntries(Object.entries(validationResult(req).mapped()).map(([name, e]) => [name, String(e.msg)]));
  const field = (name: string) => (typeof req.body?.[name] === 'string' ? (req.body[name] as string) : '');
  const fields = { action: req.originalUrl, subject, note: field('note'), until: '', back: adminPathOrNone(req.body?.back) ?? fallback };
  return noteForm(res, rule ? ruleNamed(rule) : undefined, fields, { title: 'Note not saved', errors }, 400);
}

export function notesRouter({ primary, protect }: NotesDeps): express.Router {
  const router = express.Router();
  const guard = noteFormGuard(protect, 'Writing notes needs a signed-in supervisor (sign-in is off on this server).');
  const ruleField = body('rule').optional({ values: 'falsy' }).isIn(RULE_NAMES).withMessage('must name a list of Needs attention');

  router.post('/riders/:id/notes', ...guard, noteCheck(), ruleField, async (req: Request, res: Response) => {
    const supervisor = supervisorOf(res);
    const id = String(req.params.id);
    if (!isId(id)) throw new HttpError(404, 'There is no such rider.');
    const rule =
      typeof req.body?.rule === 'string' && (RULE_NAMES as string[]).includes(req.body.rule) ? (req.body.rule as RuleName) : undefined;
    const riderPage = `${links.rider(id)}#notes-title`;
    if (!validationResult(req).isEmpty()) return refused(req, res, id, rule, riderPage);
    const { note } = matchedData(req) as { note: string };
    const [rider] = await queryRows<{ name: string }>(
      primary,
      toNative(notes.insertRiderNote({ riderId: id, rule: rule ?? null, note, supervisorId: supervisor.id, scope: scopeOf(res) })),
    );
    if (!rider) throw new HttpError(404, 'There is no such rider.');
    const back = adminPathOrNone(req.body.back) ?? riderPage;
    // Back on the rider's page, the note is in sight; from elsewhere, the notice leads to it.
    await redirectWithNotice(
      req,
      res,
      back,
      back.startsWith(`${links.rider(id)}#`) || back === links.rider(id)
        ? { text: `Saved as a note on ${rider.name}.` }
        : {
            text: `Saved as a note on ${rider.name}: it is under “Supervisors’ notes” on the rider’s page.`,
            link: { href: riderPage, text: 'See it on the rider’s page' },
          },
    );
  });

  router.post('/attention/handled/:id/notes', ...guard, noteCheck(), async (req: Request, res: Response) => {
    const supervisor = supervisorOf(res);
    const id = String(req.params.id);
    if (!isId(id)) throw new HttpError(404, 'There is no such handling.');
    if (!validationResult(req).isEmpty()) return refused(req, res, String(req.body?.subject ?? ''), undefined, links.attention());
    const { note } = matchedData(req) as { note: string };
    const [handling] = await queryRows<{ rule: RuleName; subject_id: string; handled_by: string }>(
      primary,
      toNative(notes.insertHandlingNote(id, note, supervisor.id, scopeOf(res))),
    );
    if (!handling) throw new HttpError(404, 'There is no such handling.');
    const handled = links.attentionHandled(handling.rule);
    await redirectWithNotice(req, res, adminPathOrNone(req.body.back) ?? handled, {
      text: `Your note is saved beside ${handling.handled_by}’s, under “${ruleNamed(handling.rule)?.title ?? handling.rule}”.`,
      link: { href: handled, text: 'See it on the rule’s handled rows' },
    });
  });

  return router;
}
