import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import type { Reader } from '../db/pool';
import { clientSignal } from '../http/client-signal';
import { queryRows } from '../db/rows';
import { toNative } from '../db/knex';
import { defineParams, type ParamValues, type Params } from '../filters/define';
import { queryValidator, type QueryValidator } from '../filters/validate';
import { csvFileName } from '../admin/csv-name';
import { formModel } from '../admin/form';
import { render } from '../html/render';
import { validateOrRedraw } from '../html/validate-or-redraw';
import { HttpError } from '../http/errors';
import { projectRoot } from '../paths';
import * as riderEquipment from '../queries/rider-equipment';
import { adminErrorHandler, type Logger } from '../html/errors';
import { pathId } from '../html/path-id';
import { scopeOf } from '../html/scope';
import { href, stringQuery } from '../html/urls';
import { findRiders, loadReports } from './data';
import { DEFAULT_ATTENTION, type AttentionSettings } from '../config';
import { canPrint, printerFor, type Paper } from './pdf';
import { renderReport, type ReportDocument } from './render';
import { links } from '../html/links';

/**
 * Riders in one batch document, about 50 pages. Its cost is that of its riders' histories, whatever
 * the fleet's size, so a batch takes about the same time on any fleet (docs/runs/BENCHMARKS.md, "Figures
 * once kept in code comments"). A larger selection is printed batch after batch.
 */
export const BATCH_CAP = 50;

export interface ReportsDeps {
  pool: Reader;
  log?: Logger;
  /** Chromium for PDF; defaults to the CHROMIUM_PATH setting; null turns PDF off. */
  chromiumPath?: string | null;
  batchCap?: number;
  /** The thresholds of the open points each report lists; their defaults when not given. */
  attention?: AttentionSettings;
}

const asOf = {
  type: 'date',
  label: 'As of',
  description: 'What the rider held at the end of this day, and the history up to it.',
} as const;
const paper = { type: 'enum', values: ['A4', 'Letter'], label: 'Paper', description: 'A4 or Letter.' } as const;
const after = {
  type: 'bigint',
  label: 'After rider',
  description: 'Only riders after this rider ID: the next batch, when more riders match than one batch prints.',
} as const;
// In a form's words: a bad address is drawn again as the report's own small form (see redraw below).
const single = queryValidator(defineParams({ as_of: asOf }), 'form');
const singlePdf = queryValidator(defineParams({ as_of: asOf, paper }), 'form');
const batch = queryValidator(defineParams({ ...riderEquipment.adminParams, after }), 'form');
const batchPdf = queryValidator(defineParams({ ...riderEquipment.adminParams, after, paper }), 'form');
const BATCH_FILTERS = ['rider_id', '3pl_name', 'active'];

/**
 * Printable rider reports, mounted at /admin beside the admin pages (and behind the same sign-in):
 * one rider (`/riders/:id/report`), or every rider a filter keeps (`/reports`), each also as PDF.
 */
export function createReportsRouter({
  pool,
  log = console.error,
  chromiumPath,
  batchCap = BATCH_CAP,
  attention = DEFAULT_ATTENTION,
}: ReportsDeps): Router {
  const printer = canPrint(chromiumPath ?? undefined) ? printerFor(chromiumPath!) : undefined;
  const router = express.Router();
  router.use('/reports/assets', express.static(path.join(projectRoot, 'public/reports'), { index: false, maxAge: '1h' }));

  const pdfLinks = (pdfPath: string, query: Record<string, string>) =>
    printer ? (['A4', 'Letter'] as const).map((size) => ({ href: href(pdfPath, { ...query, paper: size }), label: `PDF (${size})` })) : [];

  async function send(res: Response, doc: ReportDocument, pagePath: string, paperSize: string | undefined, filename: string) {
    const html = await renderReport(doc);
    res.set('Cache-Control', 'no-store');
    if (!paperSize) return void res.type('html').send(html);
    if (!printer) throw new HttpError(404, 'PDF downloads are not enabled on this server (see CHROMIUM_PATH in docs/ADMIN.md).');
    const pdf = await printer.print(html, pagePath, paperSize as Paper);
    res.type('application/pdf').set('Content-Disposition', `attachment; filename="${filename}"`).send(pdf);
  }

  /**
   * A report's values, or undefined once a bad address has been answered: 400, the report's own
   * fields with each message beside its field, submitting to the same address, and the way back.
   */
  async function valuesOr400<P extends Params>(
    req: Request,
    res: Response,
    validate: QueryValidator<P>,
    action: string,
    title: string,
    back: { href: string; label: string },
  ): Promise<ParamValues<P> | undefined> {
    return validateOrRedraw(validate, req.query, (errors) =>
      render(
        res,
        'report-query',
        {
          title,
          back,
          form: formModel({ action, params: validate.params, raw: stringQuery(req.query as Record<string, unknown>), errors }),
        },
        400,
      ),
    );
  }

  async function riderReport(req: Request, res: Response, asPdf: boolean) {
    const id = await pathId(String(req.params.id), 'rider');
    const values: { as_of?: string; paper?: string } | undefined = await valuesOr400(
      req,
      res,
      asPdf ? singlePdf : single,
      asPdf ? links.riderReportPdf(id) : links.riderReport(id),
      `Rider ${id}: check the report’s fields`,
      { href: links.rider(id), label: 'Back to the rider' },
    );
    if (!values) return;
    const scope = scopeOf(res);
    // Another 3PL's rider is not found, as on the rider page: its existence is not told.
    const riders = await findRiders(pool, { ...scope, rider_id: id }, 1, clientSignal(res));
    if (!riders.length) throw new HttpError(404, `There is no rider with ID ${id}.`);
    const reports = await loadReports(pool, riders, scope, attention, values.as_of, clientSignal(res));
    const query: Record<string, string> = values.as_of ? { as_of: values.as_of } : {};
    const pagePath = links.riderReport(id);
    await send(
      res,
      {
        title: `Rider ${id}: equipment report${values.as_of ? ` as of ${values.as_of}` : ''}`,
        reports,
        asOf: values.as_of,
        printedBy: printedBy(res),
        toolbar: { back: { href: links.rider(id), label: 'Back to the rider' }, pdf: pdfLinks(links.riderReportPdf(id), query) },
      },
      pagePath,
      values.paper,
      `rider-${id}-report${values.as_of ? `-${values.as_of}` : ''}.pdf`,
    );
  }

  /**
   * Every rider the filters keep, by id, in batches of at most `batchCap`: a 3PL of 17,000 riders is
   * printed batch after batch (`after`: the last rider of the batch before), each read from an index
   * range, so a batch costs the same whatever the fleet's size.
   */
  async function batchReport(req: Request, res: Response, asPdf: boolean) {
    const values: (riderEquipment.Filters & { after?: string; paper?: string }) | undefined = await valuesOr400(
      req,
      res,
      asPdf ? batchPdf : batch,
      asPdf ? links.reportsPdf() : links.reports(),
      'Equipment reports: check the report’s fields',
      {
        href: links.ridersWithEquipment(stringQuery(req.query as Record<string, unknown>, BATCH_FILTERS)),
        label: 'Back to the riders list',
      },
    );
    if (!values) return;
    const scope = scopeOf(res);
    const filters = { rider_id: values.rider_id, '3pl_name': values['3pl_name'], active: values.active, ...scope };
    const found = await findRiders(pool, filters, batchCap, clientSignal(res), values.after);
    if (!found.length) {
      // Back to the riders' list with the same filters, where they can be changed.
      const back = {
        href: links.ridersWithEquipment(stringQuery(req.query as Record<string, unknown>, BATCH_FILTERS)),
        label: 'Back to the riders list',
      };
      const company = values['3pl_name'];
      // A rider ID alone names the rider; with other filters, the rider may be there and not match them.
      if (values.rider_id && company === undefined && values.active === undefined)
        throw new HttpError(404, `There is no rider with ID ${values.rider_id}.`, { back });
      const known =
        company === undefined ||
        (await queryRows(pool, toNative(riderEquipment.companyNames(scope).where('c.name', company)), clientSignal(res))).length > 0;
      throw new HttpError(
        404,
        !known
          ? `There is no 3PL named “${company}”${scope.company_id ? ' among yours' : ''}: names are matched exactly, as the riders list's 3PL field offers them.`
          : values.after
            ? `No rider after ID ${values.after} matches these filters.`
            : 'No rider matches these filters.',
        { back },
      );
    }
    const riders = found.slice(0, batchCap);
    const more = found.length > batchCap;
    const reports = await loadReports(pool, riders, scope, attention, undefined, clientSignal(res));
    const filterQuery = stringQuery(req.query as Record<string, unknown>, BATCH_FILTERS);
    const query = values.after ? { ...filterQuery, after: values.after } : filterQuery;
    const first = String(riders[0].id);
    const last = String(riders[riders.length - 1].id);
    await send(
      res,
      {
        title: `Equipment reports: ${riders.length === 1 ? '1 rider' : `${riders.length} riders`}${more || values.after ? `, IDs ${first} to ${last}` : ''}`,
        reports,
        printedBy: printedBy(res),
        toolbar: {
          back: { href: links.ridersWithEquipment(filterQuery), label: 'Back to the riders list' },
          pdf: pdfLinks(links.reportsPdf(), query),
        },
        batch:
          more || values.after
            ? {
                first,
                last,
                size: batchCap,
                next: more ? links.reports({ ...filterQuery, after: last }) : undefined,
                start: values.after ? links.reports(filterQuery) : undefined,
              }
            : undefined,
      },
      links.reports(),
      values.paper,
      // Named by its filters, as the lists' CSVs are (rider-reports_3pl-SwiftCo_active-1.pdf), and its part of the riders.
      `${csvFileName('rider-reports', riderEquipment.adminParams, filters, new Date().toISOString().slice(0, 10), { companyFields: ['3pl_name'] })}${more || values.after ? `_${first}-to-${last}` : ''}.pdf`,
    );
  }

  router.get('/riders/:id/report', (req, res) => riderReport(req, res, false));
  router.get('/riders/:id/report.pdf', (req, res) => riderReport(req, res, true));
  router.get('/reports', (req, res) => batchReport(req, res, false));
  router.get('/reports.pdf', (req, res) => batchReport(req, res, true));
  // Only errors of the routes above reach this; other paths pass on to the admin router.
  router.use(adminErrorHandler(log));
  return router;
}

/** Who prints: the signed-in supervisor, or a plain note when sign-in is off. */
function printedBy(res: Response): string {
  return (res.locals.supervisor as { username?: string } | undefined)?.username ?? '(sign-in is off)';
}
