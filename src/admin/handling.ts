import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { body, matchedData, validationResult } from 'express-validator';
import type { AttentionSettings } from '../config';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { HttpError } from '../http/errors';
import * as handling from '../rules/handling';
import * as owners from '../rules/owners';
import { redirectWithNotice, render } from '../html/render';
import { scopeOf } from '../html/scope';
import { links } from '../html/links';
import { adminPathOrNone } from '../html/urls';
import { ruleEvidence, ruleNamed, type RegisteredRule as Rule } from '../rules';
import { CONTROL, noteChecks } from './note-checks';
import { formBody, noteFormGuard } from './form-body';
import { noteForm } from './note-form';
import { isId, selectionForm, selectionOf, TICKED_MAX, type SelectionFields } from './selection';

// Marking a row of "Needs attention" handled, undoing it, and a rule's handled rows. Only a signed-in
// supervisor writes (the session's CSRF token on every form); what is written is the service's own
// data (access.attention_handled), on the primary. A supervisor of one 3PL handles only its riders.

export interface HandlingDeps {
  /** Reads of the pages (a replica may serve them). */
  pool: Reader;
  /** Where handlings are written: the primary. */
  primary: Reader;
  /** The CSRF check of the sign-in (absent without sign-in: then nothing can be marked). */
  protect?: RequestHandler;
  settings: AttentionSettings;
  /** Today, YYYY-MM-DD, in the service's time zone: an "until" day must be after it. */
  today: () => string;
}

/** Where a form returns: the page it was on, when that is an admin page; else the rule on Needs attention. */
const safeBack = (value: unknown, rule: string) => adminPathOrNone(value) ?? `${links.attention()}#${rule}`;

const handleForm = (today: () => string) => [
  body('subject').isString().custom(isId).withMessage('must be the ID of a listed row'),
  ...noteChecks(today),
];

const batchForm = (today: () => string) => [...selectionForm, ...noteChecks(today)];

function supervisorOf(res: Response): { id: string } {
  const supervisor = res.locals.supervisor as { id: string } | undefined;
  if (!supervisor) throw new HttpError(403, 'Marking rows handled needs a signed-in supervisor (sign-in is off on this server).');
  return supervisor;
}

function ruleOf(req: Request): Rule {
  const rule = ruleNamed(String(req.params.rule));
  if (!rule) throw new HttpError(404, 'There is no such list of points to attend to.');
  return rule;
}

/**
 * A form refused for its note or its day, or because the row was handled meanwhile (`handledBy`): the
 * same form again, with what was typed and why it was refused.
 */
async function retry(
  req: Request,
  res: Response,
  rule: Rule,
  mapped: Record<string, { msg: unknown }>,
  handledBy?: Record<string, unknown>,
  /** The row left the rule's list while the note was typed (newer evidence): nothing to mark, the note kept. */
  left?: { name: string },
): Promise<void> {
  const field = (name: string) => (typeof req.body?.[name] === 'string' ? (req.body[name] as string) : '');
  // A bad subject is no typing mistake (the form sets it): refused as before.
  if (mapped.subject) throw new HttpError(400, `The row was not marked handled: subject ${String(mapped.subject.msg)}.`);
  const errors = Object.fromEntries(Object.entries(mapped).map(([name, error]) => [name, String(error.msg)]));
  const fields = {
    action: req.originalUrl,
    subject: field('subject'),
    back: safeBack(req.body?.back, rule.name),
    note: field('note'),
    until: field('until'),
  };
  await noteForm(res, rule, fields, { title: `Not marked handled: ${rule.title}`, errors, handledBy, left }, handledBy || left ? 409 : 400);
}

/** A handling or batch with nothing left to undo: its rule, and who undid it and when (none: replaced since). */
interface NotLive {
  rule: string;
  undone_by: string | null;
  undone_at: string | null;
}

export function handlingRouter({ pool, primary, protect, settings, today }: HandlingDeps) {
  const router = express.Router();
  const guard = noteFormGuard(protect, 'Marking rows handled needs a signed-in supervisor (sign-in is off on this server).');

  router.post('/attention/:rule/handled', ...guard, ...handleForm(today), async (req: Request, res: Response) => {
    const rule = ruleOf(req);
    const supervisor = supervisorOf(res);
    const errors = validationResult(req);
    if (!errors.isEmpty()) return retry(req, res, rule, errors.mapped());
    const { subject, note, until } = matchedData(req) as { subject: string; note: string; until?: string };
    const scope = scopeOf(res);
    const [found] = await queryRows(primary, toNative(handling.subjectInScope(rule, subject, scope)));
    if (!found) throw new HttpError(404, rule.subject === '3pl' ? 'There is no such 3PL.' : 'There is no such rider.');
    // What the rule shows for the subject now: the handling covers that evidence, and no newer.
    const q = { asOf: null, settings, scope };
    const evidence = ruleEvidence(rule, subject, q);
    const [written] = await queryRows(
      primary,
      toNative(
        handling.insertHandling({ rule: rule.name, subjectId: subject, evidence, note, until: until || null, supervisorId: supervisor.id }),
      ),
    );
    if (!written) {
      // Handled meanwhile (another tab, another supervisor): say by whom, and keep what was typed.
      const [live] = await queryRows(primary, toNative(handling.liveHandling(rule.name, subject)));
      if (live) return retry(req, res, rule, {}, { ...live, name: found.name });
      // Not listed (any more): the page that was open showed it, and the note typed there is given back.
      return retry(req, res, rule, {}, undefined, { name: String(found.name) });
    }
    // Back at the row after the one handled (its key, as rowsOf gave it), not at the page's top.
    const next = typeof req.body.next === 'string' && /^[a-z0-9-]{1,80}$/.test(req.body.next) ? req.body.next : undefined;
    const back = safeBack(req.body.back, rule.name);
    await redirectWithNotice(req, res, next && !back.includes('#') ? `${back}#row-${next}` : back, {
      text: `Marked handled: ${found.name}, under “${rule.title}”.`,
      link: { href: links.attentionHandled(rule.name), text: 'Its note, on the rule’s handled rows' },
      undo: { action: links.attentionUndo(String(written.id)), back },
    });
  });

  const batchGuard: RequestHandler[] = protect
    ? [formBody('256kb', TICKED_MAX * 2 + 20, `at most ${TICKED_MAX} ticked rows and a note of at most 2,000 characters`), protect]
    : guard;

  router.post('/attention/:rule/batch', ...batchGuard, ...batchForm(today), async (req: Request, res: Response) => {
    const rule = ruleOf(req);
    if (rule.subject !== 'rider') throw new HttpError(404, 'The rows of this rule are handled one by one.');
    const supervisor = supervisorOf(res);
    const fields = matchedData(req, { onlyValidData: false }) as SelectionFields & { note?: string; until?: string };
    const back = safeBack(req.body?.back, rule.name);
    const { q, selection } = selectionOf(rule, fields, settings, scopeOf(res));
    const view = {
      rule,
      back,
      which: fields.which,
      subjects: fields.subjects ?? [],
      company: selection.company,
      owner: selection.owner,
      item: fields.item || undefined,
      note: fields.note ?? '',
      until: fields.until ?? '',
    };
    const errors: Record<string, string> = Object.fromEntries(
      Object.entries(validationResult(req).mapped()).map(([k, e]) => [k, String(e.msg)]),
    );
    if (!errors.which && fields.which === 'ticked' && view.subjects.length === 0)
      errors.which = 'tick at least one row, or choose all the rows the filters select';
    const draw = (status: number, extra: Record<string, unknown>) =>
      render(
        res,
        'attention-batch',
        {
          title: `Mark handled: ${rule.title}`,
          section: 'attention',
          action: req.originalUrl,
          ...view,
          ...extra,
          form: { fields: [{ control: 'date' }] },
        },
        status,
      );
    if (Object.keys(errors).length) return draw(400, { errors });

    const [{ total }] = await queryRows<{ total: string }>(primary, toNative(handling.batchCount(rule, q, selection)));
    const count = Number(total);
    if (count > handling.BATCH_MAX) {
      return draw(400, {
        errors: {
          which: `selects more than ${handling.BATCH_MAX.toLocaleString('en')} rows: narrow the filters (by 3PL, say) and try again`,
        },
      });
    }
    if (count === 0) return draw(409, { errors: { which: 'selects no row listed now: they were handled meanwhile, or left the list' } });
    if (req.body.confirm !== 'yes') return draw(200, { errors: {}, confirm: count });

    const [batch] = await queryRows<{ id: string; rows: string }>(
      primary,
      toNative(handling.insertBatch({ rule, q, selection, note: fields.note!, until: fields.until || null, supervisorId: supervisor.id })),
    );
    const rows = Number(batch.rows);
    const left = count - rows;
    await redirectWithNotice(req, res, back, {
      text: `Marked handled: ${rows.toLocaleString('en')} ${rows === 1 ? 'row' : 'rows'} of “${rule.title}”, with one note${left > 0 ? `; ${left.toLocaleString('en')} handled meanwhile by someone else were left as they were` : ''}.`,
      link: { href: links.attentionHandled(rule.name), text: 'The rule’s handled rows' },
      undo: { action: links.attentionBatchUndo(batch.id), back },
    });
  });

  // The supervisors this one may give rows to, for the rule lists' batch form (a small table; signed in only).
  router.get('/attention/:rule', async (req: Request, res: Response, next: NextFunction) => {
    if (res.locals.supervisor && ruleNamed(String(req.params.rule))?.subject === 'rider') {
      res.locals.assignees = await queryRows<{ id: string; username: string }>(pool, toNative(owners.assignees(scopeOf(res))));
    }
    next();
  });

  router.post(
    '/attention/:rule/assign',
    ...batchGuard,
    ...selectionForm,
    body('assignee')
      .optional({ values: 'falsy' })
      .isString()
      .isLength({ max: 64 })
      .bail()
      // PostgreSQL refuses a NUL in a text: a name no supervisor can have, said before it is looked up.
      .custom((assignee: string) => !CONTROL.test(assignee))
      .withMessage('must not hold control characters (such as NUL)'),
    async (req: Request, res: Response) => {
      const rule = ruleOf(req);
      if (rule.subject !== 'rider') throw new HttpError(404, 'The rows of this rule are not given to supervisors.');
      const supervisor = supervisorOf(res);
      const back = safeBack(req.body?.back, rule.name);
      const fields = matchedData(req, { onlyValidData: false }) as SelectionFields & { assignee?: string };
      const errors = validationResult(req).mapped();
      const firstError = Object.entries(errors)[0];
      if (firstError) throw new HttpError(400, `Nothing was given to anyone: ${firstError[0]} ${String(firstError[1].msg)}.`);
      // Said on the list the form was on, where the rows are ticked.
      if (fields.which === 'ticked' && fields.subjects.length === 0)
        return redirectWithNotice(req, res, back, {
          text: 'Nothing was given to anyone: no row was ticked. Tick rows in the table, or choose all the rows the filters select.',
          refused: true,
        });
      const scope = scopeOf(res);
      let assignee: { id: string; username: string; company_id: string | null } | null = null;
      if (fields.assignee) {
        [assignee] = await queryRows<{ id: string; username: string; company_id: string | null }>(
          primary,
          toNative(owners.assignees(scope).where('s.username', fields.assignee)),
        );
        if (!assignee)
          throw new HttpError(400, `Nothing was given to anyone: there is no supervisor “${fields.assignee}” who sees these rows.`);
      }
      const { q, selection } = selectionOf(rule, fields, settings, scope);
      const [{ rows }] = await queryRows<{ rows: number }>(
        primary,
        toNative(
          owners.assignRows({
            rule,
            q,
            selection,
            assignee,
            by: supervisor.id,
          }),
        ),
      );
      await redirectWithNotice(req, res, back, {
        text: assignee
          ? `Given to ${assignee.username}: ${rows.toLocaleString('en')} ${rows === 1 ? 'row' : 'rows'} of “${rule.title}”${assignee.company_id ? ' (those of their 3PL)' : ''}.`
          : `Given to nobody now: ${rows.toLocaleString('en')} ${rows === 1 ? 'row' : 'rows'} of “${rule.title}”.`,
      });
    },
  );

  router.post('/attention/batches/:id/undo', ...guard, async (req: Request, res: Response) => {
    const supervisor = supervisorOf(res);
    const id = String(req.params.id);
    if (!isId(id)) throw new HttpError(404, 'There is no such batch.');
    const [undone] = await queryRows<{ id: string; rule: string; undone: number }>(
      primary,
      toNative(handling.undoBatch(id, supervisor.id, scopeOf(res))),
    );
    if (!undone) {
      // Undone already (a second click, or another supervisor first): said so where the rows are.
      const [was] = await queryRows<NotLive>(primary, toNative(handling.batchNothingToUndo(id, scopeOf(res))));
      if (!was) throw new HttpError(404, 'There is no such batch.');
      return redirectWithNotice(req, res, safeBack(req.body.back, was.rule), {
        text: was.undone_at
          ? `Nothing to undo: this batch was undone already, by ${was.undone_by} on ${was.undone_at}.`
          : 'Nothing to undo: every row of this batch was handled again since, with a later note.',
      });
    }
    await redirectWithNotice(req, res, safeBack(req.body.back, undone.rule), {
      text: `Undone: ${undone.undone.toLocaleString('en')} ${undone.undone === 1 ? 'row is' : 'rows are'} back on “${ruleNamed(undone.rule)?.title ?? undone.rule}”.`,
    });
  });

  router.post('/attention/handled/:id/undo', ...guard, async (req: Request, res: Response) => {
    const supervisor = supervisorOf(res);
    const id = String(req.params.id);
    if (!isId(id)) throw new HttpError(404, 'There is no such handling.');
    const [undone] = await queryRows<{ id: string; rule: string }>(
      primary,
      toNative(handling.undoHandling(id, supervisor.id, scopeOf(res))),
    );
    if (!undone) {
      const [was] = await queryRows<NotLive>(primary, toNative(handling.handlingNotLive(id, scopeOf(res))));
      if (!was) throw new HttpError(404, 'There is no such handling.');
      return redirectWithNotice(req, res, safeBack(req.body.back, was.rule), {
        text: was.undone_at
          ? `Nothing to undo: this was undone already, by ${was.undone_by} on ${was.undone_at}.`
          : 'Nothing to undo: a later note on the same row replaced this one; undo that one instead.',
      });
    }
    await redirectWithNotice(req, res, safeBack(req.body.back, undone.rule), {
      text: `Undone: the row is back on “${ruleNamed(undone.rule)?.title ?? undone.rule}”.`,
    });
  });

  router.get('/attention/:rule/handled', async (req: Request, res: Response) => {
    const rule = ruleNamed(String(req.params.rule));
    if (!rule) throw new HttpError(404, 'There is no such list of points to attend to.');
    const before = typeof req.query.before === 'string' && isId(req.query.before) ? req.query.before : undefined;
    if (req.query.before !== undefined && !before) throw new HttpError(400, 'before must be the ID of a handling.');
    const [rows, batches] = await Promise.all([
      queryRows<Record<string, string | null>>(pool, toNative(handling.handledOfRule(rule, scopeOf(res), before))),
      before ? Promise.resolve([]) : queryRows<Record<string, string | null>>(pool, toNative(handling.batchesOfRule(rule, scopeOf(res)))),
    ]);
    const shown = rows.slice(0, handling.HANDLED_PAGE);
    const next = rows.length > handling.HANDLED_PAGE ? links.attentionHandled(rule.name, { before: String(shown.at(-1)!.id) }) : undefined;
    await render(res, 'attention-handled', {
      title: `Handled: ${rule.title}`,
      section: 'attention',
      rule,
      rows: shown.map((row) => ({
        ...row,
        subjectHref: rule.subject === '3pl' ? undefined : links.rider(String(row.subject_id)),
        undoHref: links.attentionUndo(String(row.id)),
      })),
      batches: batches.map((batch) => ({ ...batch, undoHref: links.attentionBatchUndo(String(batch.id)) })),
      next,
      first: before ? links.attentionHandled(rule.name) : undefined,
      back: req.originalUrl,
    });
  });

  return router;
}
