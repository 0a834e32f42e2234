import express, { type Request, type Response } from 'express';
import { links } from '../html/links';
import { render } from '../html/render';
import { ruleNamed } from '../rules';
import { noteForm } from './note-form';

/**
 * A note posted after its session ended, kept through the sign-in (src/auth/sign-in.ts): its form again,
 * filled in, with the new session's token, to save where it was posted (a row of "Needs attention", a
 * rider, beside a handling). Shown once; without one, the queue.
 */
export function keptNoteRouter(): express.Router {
  const router = express.Router();
  router.get('/kept-note', async (req: Request, res: Response) => {
    const kept = req.session?.keptNote;
    if (!kept) return res.redirect(303, links.attention());
    delete req.session.keptNote;
    res.set('Cache-Control', 'no-store');
    const batch = /^\/admin\/attention\/([a-z-]+)\/batch$/.exec(kept.action)?.[1];
    if (batch) {
      // A batch's form again, filled in: sent, it asks its confirmation as before.
      const rule = ruleNamed(batch);
      if (!rule || !kept.batch) return res.redirect(303, links.attention());
      return render(res, 'attention-batch', {
        title: `Not yet saved: ${rule.title}`,
        section: 'attention',
        action: kept.action,
        rule,
        back: kept.back,
        which: kept.batch.which,
        subjects: kept.batch.subjects,
        company: kept.batch.company || undefined,
        owner: kept.batch.owner || undefined,
        item: kept.batch.item || undefined,
        note: kept.note,
        until: kept.until,
        errors: {},
        kept: true,
        form: { fields: [{ control: 'date' }] },
      });
    }
    const handled = /^\/admin\/attention\/([a-z-]+)\/handled$/.exec(kept.action)?.[1];
    const rule = ruleNamed(handled ?? kept.rule ?? '');
    if (handled && !rule) return res.redirect(303, links.attention());
    await noteForm(res, rule, kept, { title: rule ? `Not yet saved: ${rule.title}` : 'Not yet saved: your note', kept: true }, 200);
  });
  return router;
}
