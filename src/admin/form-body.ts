import express, { type RequestHandler } from 'express';
import { HttpError } from '../http/errors';
import { adminPathOrNone } from '../html/urls';

/**
 * The body parser of the supervisors' note and batch forms. A form too large to be read (a client that
 * sent more than any of these forms holds) is answered with what the forms take and the way back to
 * the page it came from, where the browser still has what was typed; nothing is saved.
 */
export function formBody(limit: string, parameterLimit: number, takes: string): RequestHandler {
  const parse = express.urlencoded({ extended: false, limit, parameterLimit });
  return (req, res, next) =>
    parse(req, res, (error?: unknown) => {
      if ((error as { status?: number } | undefined)?.status !== 413) return next(error);
      // The page the form was on, when it is one of ours (a browser sends it; without it, the overview).
      const referer = req.get('referer');
      let from: string | undefined;
      try {
        from = referer ? adminPathOrNone(new URL(referer).pathname + new URL(referer).search) : undefined;
      } catch {
        from = undefined;
      }
      next(
        new HttpError(413, `Nothing was saved: the form sent was larger than this form takes (${takes}).`, {
          cause: error,
          ...(from ? { back: { href: from, label: 'Back to the form' } } : {}),
        }),
      );
    });
}

/**
 * What runs before a supervisor's note form: its body read, then the sign-in's CSRF check (`protect`), or
 * with sign-in off, a 403 that says `refusal` (nobody can write then).
 */
export function noteFormGuard(protect: RequestHandler | undefined, refusal: string): RequestHandler[] {
  // Room for a note of 2,000 characters of any script, percent-encoded, and more: a longer one is read,
  // and refused beside its text.
  return protect
    ? [formBody('128kb', 10, 'a note of at most 2,000 characters'), protect]
    : [
        () => {
          throw new HttpError(403, refusal);
        },
      ];
}
