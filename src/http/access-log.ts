import type { IncomingMessage, ServerResponse } from 'node:http';
import morgan from 'morgan';

/** Query parameters whose values never reach the log: a token sent in the URL, a password, a key. */
const SECRET_NAME = /token|secret|pass(word|wd)?|pwd|api[-_]?key|^key$|auth|signature|^sig$|session|^sid$|^code$/i;

/**
 * The request's path and query as the access log writes them: each value of a parameter named like a
 * secret (`access_token`, `token`, `password`, `api_key`...) replaced by `***`. The rest is kept as
 * sent, so a log line still shows what was asked.
 */
export function maskedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const masked = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // a name that is not valid percent-encoding is checked as it is
      }
      return eq >= 0 && SECRET_NAME.test(name) ? `${rawName}=***` : pair;
    });
  return `${url.slice(0, q)}?${masked.join('&')}`;
}

morgan.token('masked-url', (req: IncomingMessage & { originalUrl?: string }) => maskedUrl(req.originalUrl ?? req.url ?? ''));

/** One line per answer: address, time, method, path with secrets masked, status, size, time taken, request id. */
export function accessLog(requestIdOf: (res: ServerResponse) => string | undefined) {
  morgan.token('id', (_req, res) => requestIdOf(res));
  return morgan(':remote-addr [:date[iso]] ":method :masked-url" :status :res[content-length] :response-time ms id=:id');
}
