import type { Request, Response } from 'express';
import type { Knex } from 'knex';
import { toNative } from '../db/knex';
import type { Reader } from '../db/pool';
import { queryRows } from '../db/rows';
import * as handling from '../rules/handling';
import * as notes from '../rules/notes';
import * as owners from '../rules/owners';
import { ruleNamed } from '../rules';
import { clientSignal } from '../http/client-signal';
import { defineParams } from '../filters/define';
import { queryValidator } from '../filters/validate';
import { HttpError } from '../http/errors';
import * as assignments from '../queries/assignments';
import * as patrolChecks from '../queries/patrol-checks';
import * as productExchanges from '../queries/product-exchanges';
import * as productReturns from '../queries/product-returns';
import * as riderEquipment from '../queries/rider-equipment';
import type { Scope } from '../filters/scope';
import { formModel } from './form';
import { pathId } from '../html/path-id';
import { render } from '../html/render';
import { scopeOf } from '../html/scope';
import type { Row } from './stream-csv';
import { stringQuery } from '../html/urls';
import { links } from '../html/links';
import { validateOrRedraw } from '../html/validate-or-redraw';
import { handledPoints, openPointsOf } from '../rules/open-points';
import type { AttentionSettings } from '../config';

/** The gives of a rider's rows the page shows, newest first. */
const GIVES_SHOWN = 20;

// A rider's history is short in practice; the cap keeps one page bounded if it is not.
const TIMELINE_LIMIT = 200;
const SEARCH_LIMIT = 50;
/** The search counts its riders up to this many; past it, "more than 1,000" (a count of all would read them all). */
const SEARCH_COUNT_CAP = 1000;

/** The search page's two statements for a name term: how many riders it finds (up to the cap + 1), and the first of them. */
export const searchStatements = (q: string, scope: Scope) => ({
  count: riderEquipment.searchCount(q, scope, SEARCH_COUNT_CAP),
  rows: riderEquipment.searchResults(q, scope, SEARCH_LIMIT),
});

interface Event {
  at: string;
  kind: 'assigned' | 'returned' | 'exchanged' | 'checked';
  title: string;
  detail: string;
  href?: string;
  badges?: Array<{ text: string; kind: 'pass' | 'fail' }>;
}

const newestFirst = (builder: Knex.QueryBuilder, column: string, tieBreak: string) =>
  builder
    .orderBy([
      { column, order: 'desc' },
      { column: tieBreak, order: 'desc' },
    ])
    .limit(TIMELINE_LIMIT + 1);

/**
 * One rider on one screen: why "Needs attention" lists them (the open points of their report), what
 * supervisors noted when they handled those points, equipment held now with each item's exchange day, and the timeline of everything that happened.
 */
export function riderHandler(pool: Reader, attention: AttentionSettings) {
  return async (req: Request, res: Response): Promise<void> => {
    const signal = clientSignal(res);
    const run = (builder: Knex.QueryBuilder) => queryRows<Row>(pool, toNative(builder), signal);
    const id = await pathId(String(req.params.id), 'rider');
    const scope = scopeOf(res);
    const [rider] = await run(riderEquipment.riderById(id, scope));
    if (!rider) throw new HttpError(404, `There is no rider with ID ${id}.`);
    // The history's page: the notes before this one (a note's number, from the page's own link).
    const before = req.query.notes_before;
    if (before !== undefined && (typeof before !== 'string' || !/^[1-9][0-9]{0,17}$/.test(before)))
      throw new HttpError(400, 'notes_before must be the number of a note, as the “Older notes” link gives it.');
    // The supervisors' notes' page, the same way (rider_notes_before).
    const notesBefore = req.query.rider_notes_before;
    if (notesBefore !== undefined && (typeof notesBefore !== 'string' || !/^[1-9][0-9]{0,17}$/.test(notesBefore)))
      throw new HttpError(400, 'rider_notes_before must be the number of a note, as the “Older notes” link gives it.');

    const [openPoints, history, written, gives, held, assigned, returned, exchanged, checked] = await Promise.all([
      // As of today, as the report printed now says them.
      openPointsOf(pool, [id], scope, attention, undefined, signal).then((points) => points.get(id)!),
      // What supervisors did about them: every note on this rider, undone ones too.
      run(handling.riderHistory(id, before)),
      // Notes that mark nothing handled: on the rider, or beside a handling of theirs.
      run(notes.riderNotes(id, notesBefore)),
      // Who gave the rider's rows to whom (the newest GIVES_SHOWN).
      run(owners.riderGives(id, GIVES_SHOWN)),
      run(
        assignments.withExchangeDay(assignments.adminColumns(assignments.adminFiltered({ ...scope, rider_id: id, active: true }))).orderBy([
          { column: 'a.assigned_at', order: 'desc' },
          { column: 'a.id', order: 'desc' },
        ]),
      ),
      run(newestFirst(assignments.adminColumns(assignments.adminFiltered({ ...scope, rider_id: id })), 'a.assigned_at', 'a.id')),
      run(newestFirst(productReturns.adminColumns(productReturns.filtered({ ...scope, rider_id: id })), 'pr.returned_at', 'pr.id')),
      run(newestFirst(productExchanges.adminColumns(productExchanges.filtered({ ...scope, rider_id: id })), 'e.exchanged_at', 'e.id')),
      run(newestFirst(patrolChecks.adminColumns(patrolChecks.adminFiltered({ ...scope, rider_id: id })), 'pc.checked_at', 'pc.id')),
    ]);
    const capped = [assigned, returned, exchanged, checked].some((rows) => rows.length > TIMELINE_LIMIT);
    const events: Event[] = [
      ...assigned.slice(0, TIMELINE_LIMIT).map((a) => ({
        at: String(a.assigned_at),
        kind: 'assigned' as const,
        title: `Assigned ${a.product_name} / ${a.variation_name}`,
        detail: `${a.assign_method}${a.assign_type === 'exchange' ? ', from an exchange' : ''}, by ${a.assigned_by}`,
      })),
      ...returned.slice(0, TIMELINE_LIMIT).map((r) => ({
        at: String(r.returned_at),
        kind: 'returned' as const,
        title: `Returned ${r.product_name} / ${r.variation_name}`,
        detail: `Condition: ${r.condition}; taken in by ${r.returned_by}`,
      })),
      ...exchanged.slice(0, TIMELINE_LIMIT).map((e) => ({
        at: String(e.exchanged_at),
        kind: 'exchanged' as const,
        title: `Exchanged ${e.old_product_name} / ${e.old_variation_name} for ${e.new_product_name} / ${e.new_variation_name}`,
        detail: `${e.replacement_type}: ${e.exchange_type}; processed by ${e.processed_by}`,
      })),
      ...checked.slice(0, TIMELINE_LIMIT).map((c) => ({
        at: String(c.checked_at),
        kind: 'checked' as const,
        title: `Patrol check ${c.id}`,
        detail: `By ${c.patroller_name}; score ${c.score ?? '–'}; ${c.items} item(s) reported`,
        href: links.check(String(c.id)),
        badges: [
          { text: 'ID', kind: c.id_valid ? ('pass' as const) : ('fail' as const) },
          { text: 'Plate', kind: c.plate_valid ? ('pass' as const) : ('fail' as const) },
          { text: 'Sticker', kind: c.sticker_valid ? ('pass' as const) : ('fail' as const) },
        ],
      })),
    ];
    // Same instant: the check last, the exchange before the assignment it created.
    const rank = { checked: 0, assigned: 1, returned: 2, exchanged: 3 };
    events.sort((x, y) => (x.at === y.at ? rank[x.kind] - rank[y.kind] : x.at < y.at ? 1 : -1));

    await render(res, 'rider', {
      title: `Rider ${rider.id}`,
      section: '',
      rider,
      openPoints,
      // The points a note keeps off the queue now, marked so.
      handledPoints: await handledPoints(run, id, openPoints, { settings: attention, scope }),
      history: history
        .slice(0, handling.HISTORY_PAGE)
        .map((h) => ({ ...h, ruleTitle: ruleNamed(String(h.rule))?.title ?? String(h.rule) })),
      olderNotes:
        history.length > handling.HISTORY_PAGE
          ? `${links.rider(id)}?notes_before=${history[handling.HISTORY_PAGE - 1].id}#history-title`
          : undefined,
      newestNotes: before ? `${links.rider(id)}#history-title` : undefined,
      notes: written
        .slice(0, notes.NOTES_PAGE)
        .map((n) => ({ ...n, ruleTitle: n.rule ? (ruleNamed(String(n.rule))?.title ?? String(n.rule)) : undefined })),
      olderRiderNotes:
        written.length > notes.NOTES_PAGE
          ? `${links.rider(id)}?rider_notes_before=${written[notes.NOTES_PAGE - 1].id}#notes-title`
          : undefined,
      newestRiderNotes: notesBefore ? `${links.rider(id)}#notes-title` : undefined,
      gives: gives.map((g) => ({ ...g, ruleTitle: ruleNamed(String(g.rule))?.title ?? String(g.rule) })),
      givesShown: GIVES_SHOWN,
      notesAction: links.riderNotes(id),
      back: `${links.rider(id)}#notes-title`,
      held,
      events,
      capped,
      limit: TIMELINE_LIMIT,
      inLists: {
        assignments: links.assignments({ rider_id: id }),
        returns: links.returns({ rider_id: id }),
        exchanges: links.exchanges({ rider_id: id }),
        checks: links.checks({ rider_id: id }),
      },
    });
  };
}

const searchParams = defineParams({
  q: { type: 'text', label: 'Rider ID or name', description: 'A rider ID, or part of a name in any letter case.' },
});
const validateSearch = queryValidator(searchParams, 'form');

/** The term as names are written: trimmed, each run of spaces one space ("Sara  Ali " finds Sara Ali). */
export const oneSpaced = (term: string | undefined) => term?.trim().replace(/\s+/g, ' ');

/** Finds riders by ID or by part of the name; one rider found opens the rider's page. */
export function searchHandler(pool: Reader) {
  return async (req: Request, res: Response): Promise<void> => {
    const raw = stringQuery(req.query as Record<string, unknown>);
    const values = await validateOrRedraw(validateSearch, req.query, (errors) =>
      render(
        res,
        'search',
        {
          title: 'Find a rider',
          section: '',
          form: formModel({ action: links.search(), params: searchParams, raw, errors }),
          q: raw.q ?? '',
          results: null,
        },
        400,
      ),
    );
    if (!values) return;
    const q = oneSpaced(values.q);
    const form = formModel({ action: links.search(), params: searchParams, raw });
    if (!q) return render(res, 'search', { title: 'Find a rider', section: '', form, q: '', results: null });

    if (/^[0-9]+$/.test(q)) {
      const id = await pathId(q, 'rider').catch(() => undefined);
      const [rider] = id
        ? await queryRows<{ id: string }>(pool, toNative(riderEquipment.riderById(id, scopeOf(res))), clientSignal(res))
        : [];
      if (rider) return res.redirect(303, links.rider(rider.id));
    }
    const statements = searchStatements(q, scopeOf(res));
    const [[counted], found] = await Promise.all([
      queryRows<{ total: string }>(pool, toNative(statements.count), clientSignal(res)),
      queryRows<{ id: string }>(pool, toNative(statements.rows), clientSignal(res)),
    ]);
    // One rider found: that rider is what was looked for.
    if (Number(counted.total) === 1 && found.length === 1) return res.redirect(303, links.rider(found[0].id));
    await render(res, 'search', {
      title: `Riders matching “${q}”`,
      section: '',
      form,
      q,
      results: { total: Number(counted.total), rows: found, limit: SEARCH_LIMIT, cap: SEARCH_COUNT_CAP },
    });
  };
}
