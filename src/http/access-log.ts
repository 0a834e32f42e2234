import type { IncomingMessage, ServerResponse } from 'node:http';
import morgan from 'morgan';

/** Query parameters whose values never reach the log: a token sent in the URL, a password, a key. */
const SECRET_NAME = /token|secret|pass(word|wd)?|pwd|api[-_]?key|^key$|auth|signature|^sig$|session|^sid$|^code$/i;

/** An API token's shape (src/auth/tokens.ts), wherever it stands: its prefix, then anything. */
const TOKEN_PREFIX = /rev2_/i;

/** Whether `text` holds anything shaped like an API token (a header the log would write, such as X-Request-Id). */
export const tokenShaped = (text: string): boolean => TOKEN_PREFIX.test(text);

/** `part` decoded as far as it goes (a token may come percent-encoded, even twice). */
function decoded(part: string): string {
  let text = part;
  for (let i = 0; i < 3; i++) {
    try {
      const next = decodeURIComponent(text.replace(/\+/g, ' '));
      if (next === text) break;
      text = next;
    } catch {
      break; // not valid percent-encoding: judged as it is
    }
  }
  return text;
}

/**
 * The request's path and query as the log writes them: each value of a parameter named like a secret
 * (`access_token`, `token`, `password`, `api_key`...) replaced by `***`, and anything shaped like an
 * API token (`rev2_…`) in a path segment, a parameter's name or its value, plain or percent-encoded,
 * replaced by `***` whatever its name. The rest is kept as sent, so a log line still shows what was asked.
 */
export function maskedUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q))
    .split('/')
    .map((segment) => (TOKEN_PREFIX.test(decoded(segment)) ? '***' : segment))
    .join('/');
  if (q < 0) return path;
  const masked = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      const name = decoded(rawName);
      if (TOKEN_PREFIX.test(name)) return '***';
      return eq >= 0 && (SECRET_NAME.test(name) || TOKEN_PREFIX.test(decoded(pair.slice(eq + 1)))) ? `${rawName}=***` : pair;
    });
  return `${path}?${masked.join('&')}`;
}

/** Any text bound for the log (an error's message, a failure's line) with every token-shaped run masked. */
export const maskedText = (text: string): string => text.replace(/rev2(_|%5F)[A-Za-z0-9_%-]*/gi, 'rev2_***');

morgan.token('masked-url', (req: IncomingMessage & { originalUrl?: string }) => maskedUrl(req.originalUrl ?? req.url ?? ''));
// The client's address: behind a trusted proxy, what its X-Forwarded-For says, which is any text a client sent.
// (As morgan's own :remote-addr reads it: the address at the request's start, when the socket is gone.)
morgan.token('masked-addr', (req: IncomingMessage & { ip?: string; _remoteAddress?: string }) => {
  const address = req.ip || req._remoteAddress || req.socket?.remoteAddress;
  return address === undefined ? undefined : maskedText(address);
});

/**
 * The status the client got; 499 (nginx's "client closed request") for one that hung up before any
 * answer was sent, as a request whose form never came whole: its line says so rather than "-".
 */
export function answeredStatus(req: IncomingMessage, res: ServerResponse): number {
  if (res.headersSent) return res.statusCode;
  return req.destroyed || req.socket?.destroyed ? 499 : res.statusCode;
}
morgan.token('answered-status', (req, res) => String(answeredStatus(req, res)));

/** One line per answer: address, time, method, path with secrets masked, status, size, time taken, request id. */
export function accessLog(requestIdOf: (res: ServerResponse) => string | undefined) {
  morgan.token('id', (_req, res) => requestIdOf(res));
  return morgan(':masked-addr [:date[iso]] ":method :masked-url" :answered-status :res[content-length] :response-time ms id=:id');
}
