import type { Request, RequestHandler } from 'express';
import { rateLimit, ipKeyGenerator } from 'express-rate-limit';
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
 */
export function requireBearer(tokens: TokenCache): RequestHandler {
  return (req, res, next) => {
    const match = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '');
    if (!match) throw unauthorized('Send an API token in the header Authorization: Bearer <token>.');
    if (!tokens.ready) {
      throw new HttpError(503, 'Tokens cannot be checked until the database answers; try again shortly.', {
        type: 'service-unavailable',
        headers: { 'Retry-After': '5' },
      });
    }
    const access = tokens.check(match[1]);
    if (!access) throw unauthorized('The API token is unknown, revoked or expired.', 'invalid_token');
    res.locals.access = access;
    next();
  };
}

function tooMany(windowMs: number) {
  return (req: Request, _res: unknown, next: (error: unknown) => void) => {
    const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
    const seconds = Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000));
    next(new HttpError(429, `Too many requests; try again in ${seconds} s.`, { type: 'too-many-requests', headers: { 'Retry-After': String(seconds) } }));
  };
}

/** Per token: at most `perMinute` requests in a minute. */
export function tokenRateLimit(perMinute: number): RequestHandler {
  return rateLimit({
    windowMs: 60000,
    limit: perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (_req, res) => `token:${(res.locals.access as TokenAccess).id}`,
    handler: tooMany(60000),
  });
}

/** Per client address: failed sign-ins or bad tokens, so guessing is slow. Successful requests do not count. */
export function failureRateLimit(perMinute: number): RequestHandler {
  return rateLimit({
    windowMs: 60000,
    limit: perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    skipSuccessfulRequests: true,
    keyGenerator: (req) => `ip:${ipKeyGenerator(req.ip ?? '')}`,
    handler: tooMany(60000),
  });
}
