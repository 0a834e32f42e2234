import path from 'node:path';
import ejs from 'ejs';
import type { Response } from 'express';
import { projectRoot } from '../paths';
import { links } from './links';

// Compiled templates are kept in production; elsewhere an edited view shows on the next request.
const cache = process.env.NODE_ENV === 'production';

/**
 * Renders views/<view>.ejs (`admin/list`, `reports/document`) with the site's addresses as `links`.
 * Every value from the database reaches the page through <%= %> only.
 */
export function renderView(view: string, data: Record<string, unknown>): Promise<string> {
  return ejs.renderFile(path.join(projectRoot, 'views', `${view}.ejs`), { links, ...data }, { cache });
}

/** Helpers the admin templates use. */
const helpers = {
  count: (n: number | string) => Number(n).toLocaleString('en-US'),
  percent: (part: number, whole: number) => (whole > 0 ? `${Math.round((100 * part) / whole)}%` : '–'),
  /** Only http(s) addresses become links: a stored `javascript:` address stays inert text. */
  safeUrl: (url: unknown) => (typeof url === 'string' && /^https?:\/\//i.test(url) ? url : undefined),
  nav: [
    { section: 'home', href: links.home(), label: 'Home' },
    { section: 'attention', href: links.attention(), label: 'Needs attention' },
    { section: 'checks', href: links.checks(), label: 'Patrol checks' },
    { section: 'equipment', href: links.assignments(), label: 'Equipment' },
    { section: 'questionnaire', href: links.questionnaire(), label: 'Questionnaire' },
  ],
};

export function renderToString(view: string, data: Record<string, unknown>): Promise<string> {
  return renderView(`admin/${view}`, { ...helpers, section: '', query: '', supervisor: null, csrfToken: '', notice: null, ...data });
}

/**
 * What the layout shows of the sign-in, when one is in front: who is signed in, and a sign-out form;
 * and whom they may give rows to, where a page loaded it (a rule's list: src/admin/handling.ts).
 */
export const signedIn = (res: Response) => ({
  supervisor: res.locals.supervisor ?? null,
  csrfToken: res.locals.csrfToken ?? '',
  assignees: res.locals.assignees ?? null,
});

/** A line the next page of this session shows once ("Marked handled: …"), after a form sent it elsewhere. */
export interface Notice {
  text: string;
  /** Nothing was done, and why (said as an alert): a form that could not be acted on. */
  refused?: boolean;
  /** A page to go on to (the rule's handled rows, the rider's notes). */
  link?: { href: string; text: string };
  /** An Undo of what was just done, posted from the notice itself (with the page's CSRF token). */
  undo?: { action: string; back: string };
}
type WithNotice = { session?: { notice?: Notice; save?: (done: (error?: unknown) => void) => void } };

/**
 * Sends the browser on to `location` (303) with a notice its next page shows once. The session is
 * stored before the answer leaves: a browser follows a redirect on its headers, so a session saved
 * while the body goes out (express-session's way) could be read by the next page without its notice.
 */
export async function redirectWithNotice(req: unknown, res: Response, location: string, notice: Notice): Promise<void> {
  const session = (req as WithNotice).session;
  if (session?.save) {
    session.notice = notice;
    const save = session.save.bind(session);
    await new Promise<void>((resolve, reject) => save((error) => (error ? reject(error) : resolve())));
  }
  res.redirect(303, location);
}

/** The session's notice, taken: shown once. */
function takeNotice(res: Response): Notice | null {
  const session = (res.req as WithNotice | undefined)?.session;
  const notice = session?.notice ?? null;
  if (session?.notice) delete session.notice;
  return notice;
}

/** Renders views/admin/<view>.ejs as the whole response; personal data, so never stored by caches. */
export async function render(res: Response, view: string, data: Record<string, unknown>, status = 200): Promise<void> {
  const html = await renderToString(view, { ...signedIn(res), notice: takeNotice(res), ...data });
  res.status(status).type('html').set('Cache-Control', 'no-store').send(html);
}
