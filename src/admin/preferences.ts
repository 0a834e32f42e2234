import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Supervisor, Theme } from '../auth/supervisors';
import { THEMES } from '../auth/supervisors';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { HttpError } from '../http/errors';
import { links } from '../html/links';
import { redirectWithNotice, render } from '../html/render';
import { adminPathOrNone } from '../html/urls';

// A supervisor's own choices (access.supervisor_preferences, migration 034): how the pages look, the
// system's light or dark (the default) or always one of them. Read at sign-in with the supervisor, so it
// follows them from one session to the next; kept in the session while it lasts.

const WORDS: Record<Theme, string> = {
  system: 'As the device is set (light or dark)',
  light: 'Light',
  dark: 'Dark',
};

export function preferencesRouter({ primary, protect }: { primary: Reader; protect?: RequestHandler }): express.Router {
  const router = express.Router();
  const signedInOnly = (res: Response): Supervisor => {
    const supervisor = res.locals.supervisor as Supervisor | undefined;
    if (!supervisor) throw new HttpError(404, 'Settings are a signed-in supervisor’s (sign-in is off on this server).');
    return supervisor;
  };

  router.get('/preferences', async (_req: Request, res: Response) => {
    const supervisor = signedInOnly(res);
    await render(res, 'preferences', {
      title: 'Your settings',
      section: '',
      themes: THEMES.map((value) => ({ value, label: WORDS[value], checked: (supervisor.theme ?? 'system') === value })),
    });
  });

  const form = express.urlencoded({ extended: false, limit: '2kb', parameterLimit: 5 });
  router.post('/preferences', ...(protect ? [form, protect] : []), async (req: Request, res: Response) => {
    const supervisor = signedInOnly(res);
    const theme = req.body?.theme as Theme;
    if (!THEMES.includes(theme)) throw new HttpError(400, `theme must be one of: ${THEMES.join(', ')}.`);
    await queryRows(primary, {
      text: `INSERT INTO access.supervisor_preferences AS p (supervisor_id, theme) VALUES ($1, $2)
             ON CONFLICT (supervisor_id) DO UPDATE SET theme = EXCLUDED.theme, updated_at = now()`,
      values: [supervisor.id, theme],
    });
    // This session's pages follow at once; the next sessions read it at sign-in.
    req.session.supervisor = { ...supervisor, theme };
    await redirectWithNotice(req, res, adminPathOrNone(req.body?.back) ?? links.preferences(), {
      text: `The pages look: ${WORDS[theme]}.`,
    });
  });
  return router;
}
