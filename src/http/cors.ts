import cors from 'cors';
import type { RequestHandler } from 'express';

/**
 * CORS for the API, only for the origins listed in CORS_ORIGINS (or any, given `*`). A browser's
 * preflight (OPTIONS) is answered here, before the token check: it carries no token by design.
 * Tokens travel in the Authorization header, never in cookies, so no credentials mode is offered.
 */
export function apiCors(origins: readonly string[]): RequestHandler {
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'HEAD'],
    allowedHeaders: ['Authorization', 'X-Request-Id'],
    // What a page may read from an answer besides the CORS-safelisted headers.
    exposedHeaders: ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'WWW-Authenticate'],
    maxAge: 600,
  });
}
