import express, { type Request, type Response } from 'express';
import { links } from '../html/links';
import { render } from '../html/render';
import { ruleNamed } from '../rules';

/**
 * A note posted after its session ended, kept through the sign-in (src/auth/sign-in.ts): its form again,
 * filled in, with the new session's token, to save. Shown once; without one, the queue.
 */
export function keptNoteRouter(): express.Router {
  const router = express.Router();
  router.get('/kept-note', async (req: Request, res: Response) => {
    const kept = req.session?.keptNote;
    if (!kept) return res.redirect(303, links.attention());
    delete req.session.keptNote;
    const rule = ruleNamed(/^\/admin\/attention\/([a-z-]+)\/handled$/.exec(kept.action)?.[1] ?? '');
    if (!rule) return res.redirect(303, links.attention());
    await render(
      res.set('Cache-Control', 'no-store'),
      'handle-retry',
      {
        title: `Not yet saved: ${rule.title}`,
        section: 'attention',
        action: kept.action,
        subject: kept.subject,
        back: kept.back,
        note: kept.note,
        until: kept.until,
        errors: {},
        handledBy: undefined,
        left: undefined,
        kept: true,
        ruleTitle: rule.title,
        form: { fields: [{ control: 'date' }] },
      },
      200,
    );
  });
  return router;
}
