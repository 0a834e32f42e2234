import crypto from 'node:crypto';
import type { Request, Response } from 'express';

// The sign-in form's CSRF token lives in a signed cookie, not in a session (a double submit): a
// visitor who only views the form stores nothing on the server, so anonymous requests never write to
// the primary. The form sends the token back in `_csrf`; a POST is taken only when that value equals
// the cookie's and carries our signature from the last two hours. A site that cannot read our cookie
// (SameSite, HttpOnly) cannot submit it, and one that could plant a cookie cannot mint a token.

const COOKIE = 'rider_equipment.sign_in';
const LIFETIME_MS = 2 * 3600000;
/** A token older than this is replaced when the form is drawn, so a form left open still has an hour. */
const RENEW_AFTER_MS = LIFETIME_MS / 2;
const TOKEN = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{24})\.([A-Za-z0-9_-]{43})$/;

export interface SignInCsrf {
  /** The token for a form drawn now: the visitor's cookie when still good, else a new one set as the cookie. */
  token(req: Request, res: Response): string;
  /** Whether the posted `_csrf` is the visitor's cookie and a token of ours, still good. */
  valid(req: Request): boolean;
  /** Drops the cookie (after sign-in: the session's own token takes over). */
  clear(req: Request, res: Response): void;
}

/** A cookie's value, read from the header (the admin has no cookie parser; express-session reads its own). */
export function cookieOf(req: Request, name = COOKIE): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** Equal texts, compared in constant time: by their bytes (a text of one length may have bytes of another). */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** `path` is where the cookie is sent (the sign-in form's address); `secret` the sessions' secret. */
export function signInCsrf(secret: string, path: string): SignInCsrf {
  // A key of its own, derived from the sessions' secret, so that no session signature is ever a token.
  const key = crypto.createHmac('sha256', secret).update('sign-in csrf').digest();
  const sign = (body: string) => crypto.createHmac('sha256', key).update(body).digest('base64url');

  /** The token's age in milliseconds, when it is ours; undefined otherwise. */
  function ageOf(token: string | undefined): number | undefined {
    const parts = token ? TOKEN.exec(token) : null;
    if (!parts || !sameText(parts[3], sign(`${parts[1]}.${parts[2]}`))) return undefined;
    const age = Date.now() - parseInt(parts[1], 36);
    return age >= -60000 && age < LIFETIME_MS ? age : undefined;
  }

  const options = (req: Request) => ({ httpOnly: true, sameSite: 'strict' as const, secure: req.secure, path });

  return {
    token(req, res) {
      const current = cookieOf(req);
      const age = ageOf(current);
      if (current && age !== undefined && age < RENEW_AFTER_MS) return current;
      const body = `${Date.now().toString(36)}.${crypto.randomBytes(18).toString('base64url')}`;
      const token = `${body}.${sign(body)}`;
      res.cookie(COOKIE, token, { ...options(req), maxAge: LIFETIME_MS });
      return token;
    },
    valid(req) {
      const posted = (req.body as Record<string, unknown> | undefined)?._csrf;
      const current = cookieOf(req);
      return typeof posted === 'string' && current !== undefined && sameText(posted, current) && ageOf(current) !== undefined;
    },
    clear(req, res) {
      if (cookieOf(req) !== undefined) res.clearCookie(COOKIE, options(req));
    },
  };
}
