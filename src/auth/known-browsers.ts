import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import { cookieOf, sameText } from './sign-in-csrf';

// Browsers a supervisor has signed in from: a signed cookie naming the accounts that signed in on it
// (OWASP's "device cookies"). The sign-in's limit per address does not hold such a browser back for
// those accounts, so a guesser behind the office's address (a shared NAT, a proxy without TRUST_PROXY)
// cannot lock the office out; the limits per account stay on every browser.

const COOKIE = 'rider_equipment.known';
const LIFETIME_MS = 180 * 86400000;
/** Accounts one browser remembers (a shared office computer): the latest ones. */
const MOST = 4;
const ENTRY = /^([A-Za-z0-9_-]{1,88})\.([A-Za-z0-9_-]{43})$/;

export interface KnownBrowsers {
  /** Whether this browser has signed in as `username` (within the cookie's life, under this secret). */
  knows(req: Request, username: string): boolean;
  /** Remembers that this browser signed in as `username`. */
  remember(req: Request, res: Response, username: string): void;
}

/** `path` is where the cookie is sent (the sign-in form's address); `secret` the sessions' secret. */
export function knownBrowsers(secret: string, path: string): KnownBrowsers {
  // A key of its own, derived from the sessions' secret, so that no other signature is ever an entry.
  const key = crypto.createHmac('sha256', secret).update('known browser').digest();
  const entryOf = (username: string) => {
    const name = Buffer.from(username).toString('base64url');
    return `${name}.${crypto.createHmac('sha256', key).update(name).digest('base64url')}`;
  };
  /** The accounts the cookie names with our signature. */
  const accounts = (req: Request): string[] =>
    (cookieOf(req, COOKIE) ?? '')
      .split('~')
      .map((entry) => ENTRY.exec(entry))
      .filter(
        (parts): parts is RegExpExecArray => parts !== null && sameText(parts[0], entryOf(Buffer.from(parts[1], 'base64url').toString())),
      )
      .map((parts) => Buffer.from(parts[1], 'base64url').toString());

  return {
    knows: (req, username) => accounts(req).includes(username),
    remember(req, res, username) {
      const names = [username, ...accounts(req).filter((name) => name !== username)].slice(0, MOST);
      res.cookie(COOKIE, names.map(entryOf).join('~'), {
        httpOnly: true,
        sameSite: 'strict',
        secure: req.secure,
        path,
        maxAge: LIFETIME_MS,
      });
    },
  };
}
