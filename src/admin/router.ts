import express, { type RequestHandler, type Router } from 'express';
import type { Reader } from '../db/pool';
import { StreamLimit } from '../http/stream-limit';
import { checkHandler } from './check-page';
import { attentionHandlers } from './attention';
import { handlingRouter } from './handling';
import { keptNoteRouter } from './kept-note';
import { notesRouter } from './notes';
import { preferencesRouter } from './preferences';
import { DEFAULT_ATTENTION, type AttentionSettings } from '../config';
import { choiceSource, keptChoices, riderLookupHandler } from './choices';
import { adminErrorHandler, notFound, type Logger } from '../html/errors';
import { homeHandler } from './home';
import { listHandlers } from './list-page';
import { dayIn } from './date-presets';
import { equipmentTabs } from './lists';
import { adminLists } from './registry';
import { questionnaireCsv, questionnaireHandler } from './questionnaire';
import { riderHandler, searchHandler } from './rider-page';
import { links } from '../html/links';

export interface AdminDeps {
  pool: Reader;
  /** Connections for CSV downloads, which read whole tables; the query pool when not given. */
  streamPool?: Reader;
  /** CSV downloads each session may run at once (STREAMS_PER_TOKEN); unlimited when not given. */
  streamLimit?: StreamLimit;
  log?: Logger;
  /** The thresholds of the "Needs attention" rules; their defaults when not given. */
  attention?: AttentionSettings;
  /** Lists count their totals up to this, then say "more than" (DEFAULT_COUNT_CAP when not given). */
  listCountCap?: number;
  /** A list CSV's first rows, read as a page is before the rest (CSV_HEAD_ROWS; 0: one statement for all). */
  csvHeadRows?: number;
  /** A list's CSV written by PostgreSQL (COPY) when every column can be (default); false: by JavaScript. */
  csvCopy?: boolean;
  /** The service's time zone (TIME_ZONE): the lists' date presets start from today in it (UTC when not given). */
  timeZone?: string;
  /** Today, YYYY-MM-DD; from the clock in `timeZone` when not given (tests fix it). */
  today?: () => string;
  /**
   * Where supervisors' notes on "Needs attention" are written (the primary) and the sign-in's CSRF
   * check for their forms; without it the rows can be read but not marked handled.
   */
  handling?: { primary: Reader; protect: RequestHandler };
}

/**
 * The supervisors' HTML pages, mounted at /admin. One router, so a sign-in middleware can be put in
 * front of all of it. Every page is a GET whose filters live in the URL; the one thing written is the
 * supervisors' own notes on "Needs attention" (POST, with the sign-in's CSRF token).
 */
export function createAdminRouter({
  pool,
  streamPool = pool,
  streamLimit = new StreamLimit(Infinity),
  log = console.error,
  attention = DEFAULT_ATTENTION,
  listCountCap,
  csvHeadRows,
  csvCopy,
  handling,
  timeZone = 'UTC',
  today = () => dayIn(timeZone),
}: AdminDeps): Router {
  const router = express.Router();
  const choices = keptChoices(choiceSource(pool));

  router.get('/', homeHandler(pool, attention));
  const attend = attentionHandlers({ pool, streamPool, streamLimit, settings: attention, choices });
  router.get('/attention', attend.page);
  for (const { path, handler } of attend.companyCsvs) router.get(path, handler);
  router.use(keptNoteRouter());
  router.use(preferencesRouter({ primary: handling?.primary ?? pool, protect: handling?.protect }));
  router.use(notesRouter({ primary: handling?.primary ?? pool, protect: handling?.protect }));
  router.use(handlingRouter({ pool, primary: handling?.primary ?? pool, protect: handling?.protect, settings: attention, today }));
  for (const resource of adminLists(attention)) {
    const handlers = listHandlers(resource, {
      pool,
      streamPool,
      streamLimit,
      choices,
      tabs: equipmentTabs,
      countCap: listCountCap,
      csvHeadRows,
      csvCopy,
      today,
    });
    router.get(resource.path, handlers.page);
    router.get(`${resource.path}.csv`, handlers.csv);
  }
  router.get('/checks/:id', checkHandler(pool));
  router.get('/riders/:id', riderHandler(pool, attention));
  router.get('/search', searchHandler(pool));
  router.get('/lookup/riders', riderLookupHandler(choices));
  router.get('/questionnaire', questionnaireHandler(pool));
  router.get('/questionnaire.csv', questionnaireCsv(streamPool, streamLimit));
  router.get('/equipment', (_req, res) => res.redirect(302, links.assignments()));
  router.get('/riders', (_req, res) => res.redirect(302, links.search()));

  router.use(notFound);
  router.use(adminErrorHandler(log));
  return router;
}
