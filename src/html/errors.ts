import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { HttpError, logFailure, toHttpError } from '../http/errors';
import { clientGone } from '../http/problem';
import { renderToString, signedIn } from './render';

import type { Logger } from '../http/failure-log';

export type { Logger };

/** Unmatched admin paths: 404 for GET and HEAD, 405 for other methods. */
export const notFound: RequestHandler = (req: Request) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw new HttpError(405, `${req.method} is not allowed here; these pages are read-only.`, { headers: { Allow: 'GET, HEAD' } });
  }
  throw new HttpError(404, 'There is no page at this address.');
};

/**
 * A page whose statement ran past the admin pages' budget (ADMIN_STATEMENT_TIMEOUT_MS: PostgreSQL
 * cancelled it, 57014): said as such, with the faster ways to the same rows. Only this page is refused;
 * the others go on, on the admin pool's other connections.
 */
function overBudget(thrown: unknown): HttpError | undefined {
  if ((thrown as { code?: unknown } | null)?.code !== '57014') return undefined;
  return new HttpError(
    503,
    'This page needed the database for longer than a page may, so it was stopped. Narrow it to get it at once: ' +
      'choose a 3PL, a shorter date range or one rider; a page far from the start is quicker to reach by its day ' +
      '(“Go to a day”, below the list), by sorting the other way or by Last, than by its number.',
    { title: 'This page took too long', cause: thrown },
  );
}

/**
 * The admin surface's error tail: an HTML page in the site's frame. 4xx pages say what was wrong;
 * a 5xx page shows only the request id (the log has the cause under it), never a stack or SQL.
 */
export function adminErrorHandler(log: Logger): ErrorRequestHandler {
  return async (thrown, req, res, _next) => {
    if (clientGone(thrown, req, res, log)) return;
    const error = overBudget(thrown) ?? toHttpError(thrown);
    const requestId = String(res.locals.requestId ?? '');
    if (error.status >= 500) logFailure(log, requestId, req.method, req.originalUrl, error.status, error.options.cause ?? thrown);
    if (res.headersSent) {
      // Part of a download is out; ending it cleanly would pass a truncated file off as complete.
      res.destroy();
      return;
    }
    const message = error.status === 500 ? 'Something went wrong on our side.' : error.message;
    let html: string;
    try {
      html = await renderToString('error', {
        ...signedIn(res),
        title: error.title,
        status: error.status,
        message,
        requestId,
        back: error.options.back,
      });
    } catch (renderError) {
      log(`[${requestId}] the error page itself failed: ${(renderError as Error)?.stack ?? String(renderError)}`);
      html = `<!doctype html><title>${error.status}</title><p>Error ${error.status}. Request id: ${requestId.replace(/[^A-Za-z0-9._-]/g, '')}</p>`;
    }
    res
      .status(error.status)
      .set(error.options.headers ?? {})
      .set('Cache-Control', 'no-store')
      .type('html')
      .send(html);
  };
}
