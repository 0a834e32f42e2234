import type { Request, RequestHandler } from 'express';
import { rateLimit, ipKeyGenerator, MemoryStore, type Store } from 'express-rate-limit';
import { HttpError } from '../http/errors';
import type { TokenAccess, TokenCache } from './tokens';

const CHALLENGE = 'Bearer realm="rider-equipment"';
const BEARER = /^Bearer +(\S+) *$/i;

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
    const match = BEARER.exec(req.headers.authorization ?? '');
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
    if (!match) return refuse();
    const known = tokens.check(match[1]);
    if (known) {
      res.locals.access = known;
      return next();
    }
    // A token made since the last reload is looked up (bounded, see TokenCache.lookUp), not refused.
    tokens.lookUp(match[1]).then((access) => {
      if (!access) return refuse();
      res.locals.access = access;
      next();
    }, next);
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

/**
 * Per token: at most `perMinute` requests in a minute (a fixed window), with the draft-7 `RateLimit`
 * and `RateLimit-Policy` headers. Counted by an express-rate-limit store (its MemoryStore, or the
 * shared one of src/auth/rate-limit-store.ts), but not through its middleware: that one runs on every
 * API request, and its debug lines (whose arguments are worked out even when nothing is printed: the
 * client's address among them), its per-request validations and its five awaits cost as much as the
 * rest of the checks together (docs/runs/BENCHMARKS.md). This is its draft-7 path for one option set.
 */
export function tokenRateLimit(perMinute: number, store: Store = new MemoryStore()): RequestHandler {
  const windowMs = 60000;
  // A token's key, made once per token rather than per request.
  const keys = new WeakMap<TokenAccess, string>();
  const keyOf = (access: TokenAccess) => {
    let key = keys.get(access);
    if (key === undefined) keys.set(access, (key = `token:${access.id}`));
    return key;
  };
  void store.init?.({ windowMs } as Parameters<NonNullable<Store['init']>>[0]);
  const policy = `${perMinute};w=${windowMs / 1000}`;
  const limited = tooMany(windowMs);
  return (req, res, next) => {
    const admit = ({ totalHits, resetTime }: { totalHits: number; resetTime?: Date }) => {
      const reset = resetTime ? Math.max(0, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : windowMs / 1000;
      res.setHeader('RateLimit-Policy', policy);
      res.setHeader('RateLimit', `limit=${perMinute}, remaining=${Math.max(perMinute - totalHits, 0)}, reset=${reset}`);
      if (totalHits <= perMinute) return next();
      (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit = { resetTime };
      limited(req, res, next);
    };
    // With the counts' store failing, requests are not refused for it (as passOnStoreError).
    Promise.resolve(store.increment(keyOf(res.locals.access as TokenAccess)))
      .then(admit, () => next())
      .catch(next);
  };
}
