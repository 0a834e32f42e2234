import path from 'node:path';
import ejs from 'ejs';
import type { Response } from 'express';
import { projectRoot } from '../paths';

const viewsDir = path.join(projectRoot, 'views', 'admin');
// Compiled templates are kept in production; elsewhere an edited view shows on the next request.
const cache = process.env.NODE_ENV === 'production';

/** Helpers the templates use; every value from the database reaches the page through <%= %> only. */
const helpers = {
  count: (n: number | string) => Number(n).toLocaleString('en-US'),
  percent: (part: number, whole: number) => (whole > 0 ? `${Math.round((100 * part) / whole)}%` : '–'),
  /** Only http(s) addresses become links: a stored `javascript:` address stays inert text. */
  safeUrl: (url: unknown) => (typeof url === 'string' && /^https?:\/\//i.test(url) ? url : undefined),
  nav: [
    { section: 'home', href: '/admin', label: 'Home' },
    { section: 'attention', href: '/admin/attention', label: 'Needs attention' },
    { section: 'checks', href: '/admin/checks', label: 'Patrol checks' },
    { section: 'equipment', href: '/admin/equipment/assignments', label: 'Equipment' },
    { section: 'questionnaire', href: '/admin/questionnaire', label: 'Questionnaire' },
  ],
};

export function renderToString(view: string, data: Record<string, unknown>): Promise<string> {
  return ejs.renderFile(path.join(viewsDir, `${view}.ejs`), { ...helpers, section: '', query: '', supervisor: null, csrfToken: '', ...data }, { cache });
}

/** What the layout shows of the sign-in, when one is in front: who is signed in, and a sign-out form. */
export const signedIn = (res: Response) => ({ supervisor: res.locals.supervisor ?? null, csrfToken: res.locals.csrfToken ?? '' });

/** Renders views/admin/<view>.ejs as the whole response; personal data, so never stored by caches. */
export async function render(res: Response, view: string, data: Record<string, unknown>, status = 200): Promise<void> {
  const html = await renderToString(view, { ...signedIn(res), ...data });
  res.status(status).type('html').set('Cache-Control', 'no-store').send(html);
}
