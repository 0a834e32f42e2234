import type { ErrorRequestHandler, Response } from 'express';
import { toHttpError, type HttpError } from '../../http/errors';

export type Logger = (message: string) => void;

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

/** The API's error tail: every failure as problem+json; a 5xx logs its cause, never shows it. */
export function problemHandler(log: Logger): ErrorRequestHandler {
  return (thrown, req, res, _next) => {
    const error = toHttpError(thrown);
    if (error.status >= 500) {
      const cause = error.options.cause ?? thrown;
      log(`[${res.locals.requestId}] ${req.method} ${req.path} -> ${error.status}: ${(cause as Error)?.stack ?? String(cause)}`);
    }
    if (res.headersSent) {
      // Part of a body is out; ending it cleanly would pass a truncated array off as complete.
      res.destroy();
      return;
    }
    sendProblem(res, error);
  };
}
