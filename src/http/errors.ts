import { maskedText, maskedUrl } from './access-log';
import { throttled, type Logger } from './failure-log';

// One error type for every surface: the API renders it as problem+json, the admin pages as HTML.
export type FieldErrors = Record<string, string[]>;

/** Messages by name, where the names come from a request: no prototype, so `constructor` or `__proto__` is a name like any other. */
export const fieldErrors = (): FieldErrors => Object.create(null);

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Content Too Large',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export class HttpError extends Error {
  readonly title: string;
  constructor(
    readonly status: number,
    message: string,
    readonly options: {
      title?: string;
      type?: string;
      errors?: FieldErrors;
      headers?: Record<string, string>;
      cause?: unknown;
      /** Where an admin error page leads back to (the overview when not given). */
      back?: { href: string; label: string };
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.title = options.title ?? titles[status] ?? 'Error';
  }
}

export function invalidQuery(errors: FieldErrors): HttpError {
  const names = Object.keys(errors);
  const detail = names.map((name) => `${name} ${errors[name].join('; ')}`).join('. ');
  return new HttpError(400, detail, { title: 'Invalid query parameters', type: 'invalid-query-parameters', errors });
}

// Errors that mean "the database cannot be reached or refused the work for now", not a bug.
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '57014',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
// The primary refuses changes for a while: read-only (a failover, a demotion, default_transaction_read_only)
// or out of disk or memory. Reads go on; a write (a note, a session's sign-in) waits for it to pass.
const refusingCodes = new Set(['25006', '53100', '53200']);
const isRefusingChanges = (error: unknown) => refusingCodes.has(String((error as { code?: unknown } | null)?.code));

const unavailableMessages =
  /timeout exceeded when trying to connect|Connection terminated|connection is closed|Client has encountered a connection error/i;

// Duck-typed on purpose: socket errors may come from another realm, where instanceof Error fails.
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string' && (unavailableCodes.has(code) || refusingCodes.has(code))) return true;
  if (Array.isArray(errors) && errors.some(isDatabaseUnavailable)) return true;
  return typeof message === 'string' && unavailableMessages.test(message);
}

/** Seconds a client refused a stream (its own limit, or a full stream pool) is asked to wait: an export runs for seconds to minutes. */
export const STREAM_RETRY_AFTER_S = 10;

/** db/pool's StreamsBusy: every place of the stream pool is taken (duck-typed, as above). */
function isStreamsBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'STREAMS_BUSY';
}

// The database ended this request's statement to resolve a conflict with other transactions (a
// deadlock, as beside a TRUNCATE; a serialization failure; a lock not available): the same request
// succeeds when tried again, so it is a 503 to retry, not a fault.
const conflictCodes = new Set(['40P01', '40001', '55P03']);
const isConflict = (error: unknown) => conflictCodes.has(String((error as { code?: unknown } | null)?.code));

/** Turns anything thrown into an HttpError: known ones as they are, the database away or in conflict as 503, the rest 500. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (isStreamsBusy(error)) {
    return new HttpError(503, 'All export places are in use; try again in a few seconds.', {
      type: 'streams-busy',
      headers: { 'Retry-After': String(STREAM_RETRY_AFTER_S) },
      cause: error,
    });
  }
  if (isRefusingChanges(error)) {
    return new HttpError(503, 'The database accepts no changes for now (read-only, or out of space); try again in a minute.', {
      type: 'service-unavailable',
      headers: { 'Retry-After': '30' },
      cause: error,
    });
  }
  if (isDatabaseUnavailable(error)) {
    return new HttpError(503, 'The database is not answering; try again shortly.', {
      type: 'service-unavailable',
      headers: { 'Retry-After': '5' },
      cause: error,
    });
  }
  if (isConflict(error)) {
    return new HttpError(503, 'The database stopped this request to let other work go on; try again.', {
      type: 'service-unavailable',
      headers: { 'Retry-After': '1' },
      cause: error,
    });
  }
  const status = (error as { status?: number; statusCode?: number })?.status ?? (error as { statusCode?: number })?.statusCode;
  // Errors raised by body/URL parsing middleware carry a 4xx status and a safe message.
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new HttpError(status, (error as Error).message, { cause: error });
  }
  return new HttpError(500, 'Something went wrong on our side. Quote the request id when reporting it.', {
    type: 'internal-error',
    cause: error,
  });
}

/** The request's client left before its answer (db/pool's ClientGone): nobody is left to answer. */
export function isClientGone(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'CLIENT_GONE';
}

/** The short reason of an expected failure: its code (when it has one) and message, or its parts'. */
function reasonOf(error: unknown): string {
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown };
  const text = typeof message === 'string' && message ? message : Array.isArray(errors) ? errors.map(reasonOf).join('; ') : String(error);
  return typeof code === 'string' && !text.includes(code) && code !== 'CLIENT_GONE' ? `${code} ${text}` : text;
}

/**
 * Logs a failed request: failureLine(), but a database failure through the log's ThrottledLog, at most
 * one line per reason and second (with the database away, every request fails the same way).
 */
export function logFailure(log: Logger, requestId: string, method: string, url: string, status: number | string, cause: unknown): void {
  const line = failureLine(requestId, method, url, status, cause);
  if (isDatabaseUnavailable(cause)) throttled(log).write(`${status}: ${reasonOf(cause)}`, line);
  else log(line);
}

/**
 * The log line of a failed request. Expected failures (the client went away, no database connection
 * came free in time, the database is unreachable or ended the statement in a conflict) are one line
 * with the request id and the reason;
 * anything else keeps its stack, for the bug it is.
 */
export function failureLine(requestId: string, method: string, url: string, status: number | string, cause: unknown): string {
  // No token reaches the log: not in the address (maskedUrl), nor in a message that quotes one.
  const head = `[${requestId}] ${method} ${maskedUrl(url)} -> ${status}`;
  if (isClientGone(cause) || isDatabaseUnavailable(cause) || isStreamsBusy(cause) || isConflict(cause))
    return `${head}: ${maskedText(reasonOf(cause))}`;
  return `${head}: ${maskedText((cause as Error)?.stack ?? String(cause))}`;
}
