import type { Request, RequestHandler } from 'express';
import { rateLimit, ipKeyGenerator, type Store } from 'express-rate-limit';
import { HttpError } from '../http/errors';
import type { TokenAccess, TokenCache } from './tokens';

const CHALLENGE = 'Bearer realm="rider-equipment"';

function unauthorized(detail: string, error?: string): HttpError {
  return new HttpError(401, detail, {
    type: 'unauthorized',
    headers: { 'WWW-Authenticate': error ? `${CHALLENGE}, error="${error}"` : CHALLENGE },
  });
}

/**
 * Admits a request only with `Authorization: Bearer <token>` of a live token, decided from the
 * in-memory token cache, before any pooled connection is taken. Tokens in the URL are not read.
 * Refused requests, and only those, count against `failuresPerMinute` per client address, so guessing
 * is slow while a busy client with a good token is never held back by it.
 */
export function requireBearer(tokens: TokenCache, failuresPerMinute: number, store?: Store): RequestHandler {
  const failures = rateLimit({
    windowMs: 60000,
    limit: failuresPerMinute,
    store,
    // With the counts' database away, requests are not refused for it (the tokens are checked from memory).
    passOnStoreError: true,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (req) => `ip:${ipKeyGenerator(req.ip ?? '')}`,
    handler: tooMany(60000),
  });
  return (req, res, next) => {
    const match = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '');
    if (match && !tokens.ready) {
      throw new HttpError(503, 'Tokens cannot be checked until the database answers; try again shortly.', {
        type: 'service-unavailable',
        headers: { 'Retry-After': '5' },
      });
    }
    const refuse = () => {
      const refusal = match
        ? unauthorized('The API token is unknown, revoked or expired.', 'invalid_token')
        : unauthorized('Send an API token in the header Authorization: Bearer <token>.');
      // Counted first: past the limit this answers 429, otherwise the 401.
      void failures(req, res, (error?: unknown) => next(error ?? refusal));
    };
    const admit = (access: TokenAccess | undefined) => {
      if (!access) return refuse();
      res.locals.access = access;
      next();
    };
    if (!match) return refuse();
    const known = tokens.check(match[1]);
    // A token made since the last reload is looked up (bounded, see TokenCache.lookUp), not refused.
    if (known) admit(known);
    else tokens.lookUp(match[1]).then(admit, next);
  };
}

function tooMany(windowMs: number) {
  return (req: Request, _res: unknown, next: (error: unknown) => void) => {
    const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
    const seconds = Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000));
    next(
      new HttpError(429, `Too many requests; try again in ${seconds} s.`, {
        type: 'too-many-requests',
        headers: { 'Retry-After': String(seconds) },
      }),
    );
  };
}

/** Per token: at most `perMinute` requests in a minute. */
export function tokenRateLimit(perMinute: number, store?: Store): RequestHandler {
  return rateLimit({
    windowMs: 60000,
    limit: perMinute,
    store,
    passOnStoreError: true,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (_req, res) => `token:${(res.locals.access as TokenAccess).id}`,
    handler: tooMany(60000),
  });
}
