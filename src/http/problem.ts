import type { ErrorRequestHandler, Request, Response } from 'express';
import { failureLine, isClientGone, logFailure, toHttpError, type HttpError } from './errors';

import type { Logger } from './failure-log';

export type { Logger };

/** Writes an HttpError as RFC 9457 problem+json. */
export function sendProblem(res: Response, error: HttpError): void {
  const body: Record<string, unknown> = {
    type: error.options.type ? `/problems/${error.options.type}` : 'about:blank',
    title: error.title,
    status: error.status,
    detail: error.message,
  };
  if (error.options.errors) body.errors = error.options.errors;
  if (error.status >= 500) body.request_id = res.locals.requestId;
  res
    .status(error.status)
    .set(error.options.headers ?? {})
    .set('Cache-Control', 'no-store')
    .type('application/problem+json')
    .send(JSON.stringify(body));
}

/**
 * A request whose client left: nothing can be answered, so the connection is closed, 499 (nginx's
 * "client closed request") goes to the access log and metrics, and one line to the log.
 */
export function clientGone(thrown: unknown, req: Request, res: Response, log: Logger): boolean {
  if (!isClientGone(thrown)) return false;
  if (!res.headersSent) res.statusCode = 499;
  // A request the shutdown cut has its own line already ("Cut at shutdown: ...").
  if (!res.locals.cutAtShutdown) log(failureLine(String(res.locals.requestId ?? ''), req.method, req.originalUrl, 499, thrown));
  res.destroy();
  return true;
}

/** The API's error tail: every failure as problem+json; a 5xx logs its cause, never shows it. */
export function problemHandler(log: Logger): ErrorRequestHandler {
  return (thrown, req, res, _next) => {
    if (clientGone(thrown, req, res, log)) return;
    const error = toHttpError(thrown);
    if (error.status >= 500)
      logFailure(log, res.locals.requestId, req.method, req.originalUrl, error.status, error.options.cause ?? thrown);
    if (res.headersSent) {
      // Part of a body is out; ending it cleanly would pass a truncated array off as complete.
      res.destroy();
      return;
    }
    sendProblem(res, error);
  };
}
