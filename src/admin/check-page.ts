import type { Request, Response } from 'express';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { clientSignal } from '../http/client-signal';
import { HttpError } from '../http/errors';
import * as patrolChecks from '../queries/patrol-checks';
import { pathId } from '../html/path-id';
import { render } from '../html/render';
import { scopeOf } from '../html/scope';
import { links } from '../html/links';

interface Answer {
  question: string;
  answer: string | string[] | null;
  imageUrl: string | null;
  score: string | null;
  category: string;
}

interface ReportedItem {
  imageUrl: string;
  gearBaseName: string;
  gearVariationName: string;
  gearId: string;
  variationId: string;
  gearAssignedOn: string;
  eligibleForExchange: string;
  itemStatus: string;
  categoryName: string;
}

/** One patrol check in full: results, answers with scores by category, reported items, fake-ID note. */
export function checkHandler(pool: Reader) {
  return async (req: Request, res: Response): Promise<void> => {
    const id = await pathId(String(req.params.id), 'patrol check');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one row of many columns, read by the template
    const rows = await queryRows<Record<string, any>>(pool, toNative(patrolChecks.adminCheck(id, scopeOf(res))), clientSignal(res));
    if (rows.length === 0) throw new HttpError(404, `There is no patrol check with ID ${id}.`);
    const check = rows[0];
    const answers = check.answers as Answer[];
    const items = check.reported_items as ReportedItem[];

    const byCategory = new Map<string, number>();
    for (const answer of answers) {
      if (answer.score !== null) byCategory.set(answer.category, (byCategory.get(answer.category) ?? 0) + Number(answer.score));
    }
    const results = [
      { label: 'ID card', passed: check.id_valid as boolean, href: links.checks({ is_validation: check.id_valid ? '1' : '0' }) },
      {
        label: 'License plate',
        passed: check.plate_valid as boolean,
        href: links.checks({ license_plate: check.plate_valid ? '1' : '0' }),
      },
      {
        label: 'Sticker',
        passed: check.sticker_valid as boolean,
        href: links.checks({ sticker_validation: check.sticker_valid ? '1' : '0' }),
      },
    ];
    await render(res, 'check', {
      title: `Patrol check ${check.id}`,
      section: 'checks',
      check,
      results,
      answers: answers.map((a) => ({ ...a, answerText: Array.isArray(a.answer) ? a.answer : a.answer === null ? [] : [a.answer] })),
      categories: [...byCategory].map(([category, score]) => ({ category, score })),
      totalScore: check.score === null ? null : Number(check.score),
      items,
      images: (check.fake_id_images as string[]) ?? [],
      riderChecksHref: links.checks({ rider_id: check.rider_id }),
      patrollerChecksHref: links.checks({ tpatroller_id: check.patroller_id }),
    });
  };
}
