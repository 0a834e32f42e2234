import crypto from 'node:crypto';
import connectPgSimple from 'connect-pg-simple';
import { csrfSync } from 'csrf-sync';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from 'express';
import { MemoryStore, ipKeyGenerator, rateLimit } from 'express-rate-limit';
import session from 'express-session';
import type { Config } from '../config';
import type { Pool } from '../db/pool';
import { rateLimitStores } from './rate-limit-store';
import { knownBrowsers } from './known-browsers';
import { signInCsrf } from './sign-in-csrf';
import { authenticate, stillActive, type Supervisor } from './supervisors';
import { ADMIN, links } from '../html/links';
import { renderView } from '../html/render';
import { adminPathOrNone } from '../html/urls';
import { adminErrorHandler } from '../html/errors';
import { HttpError } from '../http/errors';

declare module 'express-session' {
  interface SessionData {
    supervisor: Supervisor;
    signedInAt: number;
    /** A note posted after the session had ended, kept through the sign-in until its page shows it (KEPT_NOTE). */
    keptNote?: KeptNote;
  }
}

/** A "Mark handled" form posted after its session ended: what it said, to be given back after sign-in. */
export interface KeptNote {
  action: string;
  subject: string;
  note: string;
  until: string;
  back: string;
  /** The rule a note on a rider was typed under, if any. */
  rule?: string;
  /** A batch's rows (src/admin/handling.ts): those ticked, or all its list's filters select. */
  batch?: { which: string; subjects: string[]; company: string; owner: string; item: string };
}

/** A batch's ticked rows kept through a sign-in, at most: a page's most (TICKED_MAX of src/admin/selection.ts, held equal by a test). */
export const KEPT_TICKED_MAX = 500;

/**
 * The forms whose text is kept through a sign-in: a note on one row of "Needs attention", a batch's, a note
 * on a rider, a note beside a handling (src/admin/notes.ts).
 */
const KEPT_NOTE_ACTION =
  /^\/admin\/(attention\/[a-z-]{1,40}\/(handled|batch)|riders\/\d{1,20}\/notes|attention\/handled\/\d{1,20}\/notes)$/;

/** The kept note's fields from a posted form (`prefix` before each name), or nothing when it is not one. */
function keptNoteOf(body: Record<string, unknown> | undefined, action: unknown, prefix = ''): KeptNote | undefined {
  const text = (name: string, most: number) => {
    const value = body?.[`${prefix}${name}`];
    return typeof value === 'string' && value.length <= most ? value : undefined;
  };
  const [note, until] = [text('note', 2000), text('until', 10) ?? ''];
  const isBatch = typeof action === 'string' && action.endsWith('/batch');
  // A batch names no one subject: its ticked rows (at most a page of them) and its list's filters.
  const subject = isBatch ? '0' : text('subject', 20);
  if (typeof action !== 'string' || !KEPT_NOTE_ACTION.test(action) || !subject || !/^\d+$/.test(subject) || !note?.trim()) return undefined;
  const ticked = body?.[`${prefix}subjects`];
  const subjects = (Array.isArray(ticked) ? ticked : ticked === undefined ? [] : [ticked]).filter(
    (id): id is string => typeof id === 'string' && /^\d{1,19}$/.test(id),
  );
  const batch = isBatch
    ? {
        which: text('which', 10) === 'all' ? 'all' : 'ticked',
        subjects: subjects.slice(0, KEPT_TICKED_MAX),
        company: text('3pl', 255) ?? '',
        owner: text('owner', 64) ?? '',
        item: text('item', 40) ?? '',
      }
    : undefined;
  const rule = text('rule', 40);
  return {
    action,
    subject,
    note,
    until,
    back: adminPathOrNone(body?.[`${prefix}back`]) ?? links.attention(),
    ...(rule && /^[a-z-]+$/.test(rule) ? { rule } : {}),
    ...(batch ? { batch } : {}),
  };
}

export interface SignIn {
  /** Sessions for every /admin request; one is stored only once a supervisor has signed in. */
  sessions: RequestHandler;
  /** GET/POST /sign-in and POST /sign-out, mounted at /admin. */
  router: Router;
  /** Lets only a signed-in supervisor through; sets res.locals.supervisor and res.locals.csrfToken. */
  requireSupervisor: RequestHandler;
  /** Refuses a form posted without the session's CSRF token (403, the admin's error page). */
  protect: RequestHandler;
}

/** Only a path of this site, so a crafted sign-in link cannot send the supervisor elsewhere. */
const safeNext = (value: unknown): string => adminPathOrNone(value) ?? links.home();

/**
 * A form posted from another site: the browser says so (`Sec-Fetch-Site: cross-site` or `same-site`),
 * or its Origin (or, lacking one, its Referer) names another host than the one it was posted to.
 * Refused as a bad token would be: a second fence beside the CSRF token and the SameSite cookies. An
 * Origin of "null" (what a browser sends under this site's no-referrer policy) and a request naming
 * no source (an old client) are left to those.
 */
function fromOtherSite(req: Request): boolean {
  const fetchSite = req.get('sec-fetch-site');
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') return true;
  const origin = req.get('origin');
  const source = origin && origin !== 'null' ? origin : req.get('referer');
  if (!source) return false;
  try {
    return new URL(source).host !== req.host;
  } catch {
    return true;
  }
}

/** What access.supervisors' username may be (its CHECK): no other name can sign in. */
const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** The account a sign-in names, as the sign-in compares it (exactly), when it could be one. */
function accountOf(req: Request): string | undefined {
  const username = (req.body as Record<string, unknown> | undefined)?.username;
  return typeof username === 'string' && USERNAME.test(username) ? username : undefined;
}

export function createSignIn({ pool, config, log }: { pool: Pool; config: Config; log: (m: string) => void }): SignIn {
  const { idleMinutes, maxHours } = config.sessions;
  const secret = config.sessions.secret ?? crypto.randomBytes(32).toString('hex');
  const PgStore = connectPgSimple(session);
  /**
   * A session's rolling touch (its idle timer restarted) is written after the page: one that fails
   * (a primary that refuses writes for a while) must not cut a page already sent, so it is logged once
   * a minute and the page ends whole; the session then ends at its last successful touch.
   */
  let lastTouchLog = 0;
  /**
   * When this process last wrote each session's idle timer: a session asking again sooner than
   * `touchEvery` is not written (a page without a write, its commit and WAL flush); its stored expiry
   * then trails the cookie's by less than `touchEvery`, a tenth of the idle timeout, at most a minute.
   */
  const touchEvery = Math.min(60000, (idleMinutes * 60000) / 10);
  const touchedAt = new Map<string, number>();
  class Store extends PgStore {
    touch(sid: string, sess: session.SessionData, done?: (error?: unknown) => void): void {
      const now = Date.now();
      if (now - (touchedAt.get(sid) ?? -Infinity) < touchEvery) return done?.();
      if (touchedAt.size >= 10000) for (const [key, at] of touchedAt) if (now - at >= touchEvery) touchedAt.delete(key);
      touchedAt.set(sid, now);
      super.touch(sid, sess, (error?: unknown) => {
        if (error) touchedAt.delete(sid);
        if (error && Date.now() - lastTouchLog > 60000) {
          lastTouchLog = Date.now();
          log(`a session's idle timer could not be restarted (the page was sent whole): ${(error as Error).message}`);
        }
        done?.();
      });
    }
  }
  const sessions = session({
    store: new Store({ pool, schemaName: 'access', tableName: 'sessions', pruneSessionInterval: 600, errorLog: log }),
    name: 'rider_equipment.sid',
    secret,
    resave: false,
    // No row for a visitor: a session is stored when a supervisor signs in (the sign-in form's own
    // CSRF token is a cookie, src/auth/sign-in-csrf.ts), so anonymous requests never write.
    saveUninitialized: false,
    rolling: true, // the idle timeout restarts at every request
    cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: idleMinutes * 60000, path: ADMIN },
  });

  const { csrfSynchronisedProtection, generateToken } = csrfSync({
    getTokenFromRequest: (req) => (req.body as Record<string, string> | undefined)?._csrf,
  });

  const signInToken = signInCsrf(secret, links.signIn());
  const stores = rateLimitStores(pool, config.auth.rateLimitStore, log, config.auth.rateLimitFlushMs);

  /**
   * Failed sign-ins counted per key (each request counts, and is taken back when it signs in): past
   * `limit` in the window, the form again with 429 and Retry-After, whatever the password. A request
   * `key` gives no key for is not counted. The count is taken back as the sign-in succeeds (takeBack),
   * not when its answer has gone out whole: a client that hangs up on its redirect has not failed.
   */
  const throttle = (prefix: string, windowMinutes: number, limit: number, key: (req: Request) => string | undefined) => {
    const store = stores(prefix) ?? new MemoryStore();
    const middleware = rateLimit({
      windowMs: windowMinutes * 60000,
      limit,
      store,
      keyGenerator: (req: Request) => key(req)!,
      skip: (req: Request) => key(req) === undefined,
      passOnStoreError: true,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      handler: (req, res) => {
        const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
        const seconds = Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now()) - Date.now()) / 1000));
        res.set('Retry-After', String(seconds));
        return showForm(req, res, 429, `Too many failed sign-ins. Try again in ${Math.ceil(seconds / 60)} minutes.`);
      },
    });
    const takeBack = async (req: Request) => {
      const counted = key(req);
      if (counted !== undefined) await Promise.resolve(store.decrement(counted)).catch(() => undefined);
    };
    return Object.assign(middleware, { takeBack });
  };
  /** The client's address as a key: an IPv6 address by its /56, as express-rate-limit counts addresses. */
  const addressOf = (req: Request) => ipKeyGenerator(req.ip ?? '');
  // Three counts of failures, none of which locks out everyone behind one address (a shared NAT, or a
  // proxy without TRUST_PROXY): per account from one address, a guesser there keeps only the account
  // guessed at out; per account from any addresses, many addresses (a botnet) cannot try one account
  // without end; per address, one guesser cannot try many accounts, but a browser that has signed in as
  // the account typed (known-browsers.ts) is not held back by it. The account's window is short, for it
  // is also what an attacker can use to keep one supervisor out (docs/OPERATIONS.md, SIGN_IN_ACCOUNT_FAILURES_PER_5_MINUTES).
  const known = knownBrowsers(secret, links.signIn());
  const failedSignIns = throttle('sign-in-failures:', 15, config.auth.signInFailures, (req) => `${addressOf(req)}|${accountOf(req) ?? ''}`);
  const failedSignInsOfAddress = throttle('sign-in-address-failures:', 15, config.auth.signInAddressFailures, (req) => {
    const account = accountOf(req);
    return account !== undefined && known.knows(req, account) ? undefined : addressOf(req);
  });
  /**
   * The forms a supervisor posts (a note, a batch, an assignment, an undo), NOTES_PER_MINUTE a minute
   * each, whatever they write: one account cannot fill the notes (and the rider pages that show them)
   * at machine speed. Past it, the admin's page with 429 and Retry-After.
   */
  const posted = rateLimit({
    windowMs: 60000,
    limit: config.auth.notesPerMinute,
    store: stores('notes:'),
    keyGenerator: (_req, res) => String((res.locals.supervisor as Supervisor | undefined)?.id ?? ''),
    passOnStoreError: true,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: (req, _res, next) => {
      const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now()) - Date.now()) / 1000));
      next(
        new HttpError(
          429,
          `You have saved ${config.auth.notesPerMinute} forms in the last minute. Wait ${seconds} seconds and save again.`,
          {
            headers: { 'Retry-After': String(seconds) },
          },
        ),
      );
    },
  });
  const failedSignInsOfAccount = throttle('sign-in-account-failures:', 5, config.auth.signInAccountFailures, accountOf);

  /** The sign-in form's CSRF check: a missing or forged token shows the form again, 403. */
  const signInProtection: RequestHandler = (req, res, next) => {
    if (signInToken.valid(req) && !fromOtherSite(req)) return next();
    void showForm(req, res, 403, 'The form had expired. Please try again.');
  };

  async function showForm(req: Request, res: Response, status: number, message?: string, notice?: string, kept?: KeptNote) {
    const html = await renderView('auth/sign-in', {
      notice,
      kept: kept ?? keptNoteOf(req.body as Record<string, unknown> | undefined, req.body?.kept_action, 'kept_'),
      csrfToken: signInToken.token(req, res),
      next: safeNext(req.body?.next ?? req.query.next),
      username: typeof req.body?.username === 'string' ? req.body.username : '',
      message,
    });
    res.status(status).type('html').set('Cache-Control', 'no-store').send(html);
  }

  const router = express.Router();
  // Room for a kept note (KeptNote) of 2,000 characters of any script, percent-encoded, beside the sign-in's
  // fields, and a batch's ticked rows (a page's most).
  const form = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: KEPT_TICKED_MAX + 24 });
  router.get('/sign-in', (req, res) =>
    showForm(
      req,
      res,
      200,
      req.query.ended === '1' ? 'Your session ended. Sign in again.' : undefined,
      req.query.signed_out === '1' ? 'You are signed out.' : undefined,
    ),
  );
  router.post('/sign-in', form, signInProtection, failedSignIns, failedSignInsOfAccount, failedSignInsOfAddress, async (req, res) => {
    const { password } = req.body as Record<string, unknown>;
    // Only a name an account may have is looked up (no NUL, which PostgreSQL refuses, nor anything else).
    const username = accountOf(req);
    const supervisor =
      username !== undefined && typeof password === 'string' && password.length <= 1024
        ? await authenticate(pool, username, password)
        : undefined;
    if (!supervisor) return showForm(req, res, 401, 'Wrong username or password.');
    const next = safeNext(req.body.next);
    try {
      // A new session id at sign-in, so an id planted before it is worth nothing after.
      await new Promise<void>((resolve, reject) => req.session.regenerate((error) => (error ? reject(error) : resolve())));
      req.session.supervisor = supervisor;
      req.session.signedInAt = Date.now();
      const kept = keptNoteOf(req.body as Record<string, unknown>, req.body.kept_action, 'kept_');
      if (kept) req.session.keptNote = kept;
      // The forms' token now, so that no later page changes the session (only touches it: see Store).
      generateToken(req);
      await new Promise<void>((resolve, reject) => req.session.save((error) => (error ? reject(error) : resolve())));
    } catch (error) {
      // Not stored (the primary refuses changes): the error page is answered without a session, which
      // would otherwise be saved again after the page was sent, and fail, and cut it.
      (req as { session?: unknown }).session = undefined;
      throw error;
    }
    await Promise.all([failedSignIns, failedSignInsOfAccount, failedSignInsOfAddress].map((limit) => limit.takeBack(req)));
    signInToken.clear(req, res);
    known.remember(req, res, supervisor.username);
    res.redirect(303, req.session.keptNote ? links.keptNote() : next);
  });
  router.post(
    '/sign-out',
    form,
    (req, res, next) => protect(req, res, next),
    async (req, res) => {
      await new Promise<void>((resolve, reject) => req.session.destroy((error) => (error ? reject(error) : resolve()))).catch((error) => {
        (req as { session?: unknown }).session = undefined; // as at sign-in: the error page goes out whole
        throw error;
      });
      res.clearCookie('rider_equipment.sid', { path: ADMIN });
      res.redirect(303, `${links.signIn()}?signed_out=1`);
    },
  );

  // A missing or stale CSRF token: show the form again rather than a bare error.
  const csrfFailed: ErrorRequestHandler = (error, req, res, next) => {
    if ((error as { code?: string }).code !== 'EBADCSRFTOKEN') return next(error);
    void showForm(req, res, 403, 'The form had expired. Please try again.');
  };
  // A form too large (413, in the body parser's words otherwise) and the rest: the admin's HTML
  // error page, as on every other admin page.
  const tooLarge: ErrorRequestHandler = (error, _req, _res, next) =>
    next(
      (error as { status?: number }).status === 413
        ? new HttpError(413, 'The form sent was larger than a sign-in can be.', { cause: error })
        : error,
    );
  router.use(csrfFailed, tooLarge, adminErrorHandler(log));

  const requireSupervisor: RequestHandler = async (req, res, next) => {
    const current = req.session.supervisor;
    const expired = current && Date.now() - (req.session.signedInAt ?? 0) > maxHours * 3600000;
    if (!current || expired || !(await stillActive(pool, current.id))) {
      if (current) await new Promise<void>((resolve) => req.session.destroy(() => resolve()));
      // A note saved after the session ended: the sign-in form carries it, and gives it back once signed in.
      if (req.method === 'POST' && KEPT_NOTE_ACTION.test(req.originalUrl) && !fromOtherSite(req)) {
        await new Promise<void>((resolve) => form(req, res, () => resolve()));
        const kept = keptNoteOf(req.body as Record<string, unknown> | undefined, req.originalUrl);
        if (kept)
          return void showForm(
            req,
            res,
            401,
            undefined,
            'Your session ended before the note was saved. Sign in, and it comes back to be saved.',
            kept,
          );
      }
      const target = `${links.signIn()}?next=${encodeURIComponent(req.originalUrl)}${current ? '&ended=1' : ''}`;
      res.set('Cache-Control', 'no-store').redirect(303, target);
      return;
    }
    res.locals.supervisor = current;
    res.locals.csrfToken = generateToken(req);
    next();
  };

  // For the admin's own forms: a bad token is a 403 the admin's error handler draws.
  const protect: RequestHandler = (req, res, next) =>
    fromOtherSite(req)
      ? next(new HttpError(403, 'The form had expired or did not come from this site. Go back, reload the page and try again.'))
      : csrfSynchronisedProtection(req, res, (error?: unknown) => {
          if (!error) return void posted(req, res, next);
          next(
            (error as { code?: string }).code === 'EBADCSRFTOKEN'
              ? new HttpError(403, 'The form had expired or did not come from this site. Go back, reload the page and try again.')
              : error,
          );
        });

  return { sessions, router, requireSupervisor, protect };
}
