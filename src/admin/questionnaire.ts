import type { Request, Response } from 'express';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import { clientSignal } from '../http/client-signal';
import { sessionKey, type StreamLimit } from '../http/stream-limit';
import { queryValidator } from '../filters/validate';
import * as questions from '../queries/questions';
import { formModel } from './form';
import { render } from '../html/render';
import { streamCsv, type Row } from './stream-csv';
import { stringQuery } from '../html/urls';
import { links } from '../html/links';
import { validateOrRedraw } from '../html/validate-or-redraw';

const validate = queryValidator(questions.params, 'form');
const labels = { country_id: 'Country' }; // picked from a list here, so the name, not the id
const anyLabels = { country_id: 'Choose a country' };

interface Answer {
  position: number;
  name: string;
  name_ar: string;
  score: number;
  jump: string;
  skip: string[];
}

/** A country's questions with their answers, scores, jump and skip (the same filter as /v2/questioner). */
export function questionnaireHandler(pool: Reader) {
  return async (req: Request, res: Response): Promise<void> => {
    const raw = stringQuery(req.query as Record<string, unknown>);
    const countries = await queryRows<{ id: string; code: string; name: string; questions: string }>(
      pool,
      toNative(questions.countries()),
      clientSignal(res),
    );
    const choices = {
      country_id: countries.map((c) => ({
        value: c.id,
        label: `${c.name} (${c.code}), ${c.questions} question${c.questions === '1' ? '' : 's'}`,
      })),
    };
    const view = { title: 'Questionnaire', section: 'questionnaire', countries, country: null, questions: null };

    const values = await validateOrRedraw(validate, req.query, (errors) =>
      render(
        res,
        'questionnaire',
        { ...view, form: formModel({ action: links.questionnaire(), params: questions.params, raw, errors, choices, labels, anyLabels }) },
        400,
      ),
    );
    if (!values) return;
    const countryId = values.country_id;
    const form = formModel({ action: links.questionnaire(), params: questions.params, raw, choices, labels, anyLabels });
    if (!countryId) return render(res, 'questionnaire', { ...view, form });

    const country = countries.find((c) => c.id === countryId);
    const rows = await queryRows<Row & { id: string; answers: Answer[] }>(
      pool,
      toNative(questions.adminQuestions({ country_id: countryId })),
      clientSignal(res),
    );
    const ids = new Set(rows.map((q) => q.id));
    // jump and skip name question ids; ones in this questionnaire become links to them.
    const ref = (id: string) => ({ id, href: ids.has(id) ? `#q-${id}` : undefined });
    const list = rows.map((q) => ({
      ...q,
      answers: q.answers.map((a) => ({ ...a, jump: a.jump ? ref(a.jump) : null, skip: a.skip.map(ref) })),
    }));
    await render(res, 'questionnaire', {
      ...view,
      title: country ? `Questionnaire: ${country.name}` : 'Questionnaire',
      form,
      country: country ?? { id: countryId, code: '', name: `Country ${countryId}`, questions: '0' },
      questions: list,
      csvHref: links.questionnaireCsv({ country_id: raw.country_id ?? '' }),
    });
  };
}

const csvColumns = [
  ['country', 'Country'],
  ['question_id', 'Question ID'],
  ['question', 'Question'],
  ['question_type', 'Type'],
  ['category', 'Category'],
  ['position', 'Answer position'],
  ['answer', 'Answer'],
  ['answer_ar', 'Answer (Arabic)'],
  ['score', 'Score'],
  ['jump', 'Jump to'],
  ['skip', 'Skips'],
].map(([key, label]) => ({ label, text: (row: Row) => (row[key] === null || row[key] === undefined ? '' : String(row[key])) }));

/** The questionnaire as CSV, one row per answer. */
export function questionnaireCsv(pool: Reader, streamLimit: StreamLimit) {
  return async (req: Request, res: Response): Promise<void> => {
    const values = await validate(req.query as Record<string, unknown>);
    const name = values.country_id ? `questionnaire-country-${values.country_id}` : 'questionnaire';
    const { key, what } = sessionKey(req);
    await streamLimit.run(key, what, () =>
      streamCsv(pool, toNative(questions.adminAnswerRows(values)), res, { filename: `${name}.csv`, columns: csvColumns }),
    );
  };
}
