// Every address of the admin pages and the reports that the code links to, written once. Routes are
// mounted at ADMIN (src/app.ts); a page that moves changes here, and every link and redirect follows.
import { stylesheetHrefs } from '../http/admin-stylesheets';
import { href, type Query } from './urls';

export const ADMIN = '/admin';

/** A list page of src/admin/lists.ts by its path under /admin (`/checks`, `/equipment/returns`, …). */
const list =
  (path: string) =>
  (query: Query = {}) =>
    href(`${ADMIN}${path}`, query);

export const links = {
  home: (query: Query = {}) => href(ADMIN, query),
  attention: (query: Query = {}) => href(`${ADMIN}/attention`, query),
  attentionCsv: (rule: string, query: Query = {}) => href(`${ADMIN}/attention/${rule}.csv`, query),
  /** One rule's rows as a list, paged and sortable. */
  attentionRule: (rule: string, query: Query = {}) => href(`${ADMIN}/attention/${rule}`, query),
  /** One rule's handled rows (GET), and where a row is marked handled (POST). */
  attentionHandled: (rule: string, query: Query = {}) => href(`${ADMIN}/attention/${rule}/handled`, query),
  /** Where a handling is undone (POST). */
  attentionUndo: (id: string | number) => `${ADMIN}/attention/handled/${id}/undo`,
  attentionBatch: (rule: string) => `${ADMIN}/attention/${rule}/batch`,
  attentionBatchUndo: (id: string | number) => `${ADMIN}/attention/batches/${id}/undo`,
  /** A note posted after its session ended, given back once signed in again (src/auth/sign-in.ts). */
  keptNote: () => `${ADMIN}/kept-note`,
  checks: list('/checks'),
  check: (id: string | number) => `${ADMIN}/checks/${id}`,
  assignments: list('/equipment/assignments'),
  ridersWithEquipment: list('/equipment/riders'),
  returns: list('/equipment/returns'),
  exchanges: list('/equipment/exchanges'),
  /** A list page by its path (the lists' own definitions carry it). */
  list: (path: string, query: Query = {}) => list(path)(query),
  rider: (id: string | number) => `${ADMIN}/riders/${id}`,
  /** The signed-in supervisor's own settings (the pages' theme). */
  preferences: () => `${ADMIN}/preferences`,
  /** Where a note on the rider is posted. */
  riderNotes: (id: string | number) => `${ADMIN}/riders/${id}/notes`,
  /** Where a note beside a handling is posted. */
  handlingNotes: (id: string | number) => `${ADMIN}/attention/handled/${id}/notes`,
  riderReport: (id: string | number, query: Query = {}) => href(`${ADMIN}/riders/${id}/report`, query),
  riderReportPdf: (id: string | number, query: Query = {}) => href(`${ADMIN}/riders/${id}/report.pdf`, query),
  reports: (query: Query = {}) => href(`${ADMIN}/reports`, query),
  reportsPdf: (query: Query = {}) => href(`${ADMIN}/reports.pdf`, query),
  questionnaire: (query: Query = {}) => href(`${ADMIN}/questionnaire`, query),
  questionnaireCsv: (query: Query = {}) => href(`${ADMIN}/questionnaire.csv`, query),
  search: (query: Query = {}) => href(`${ADMIN}/search`, query),
  riderLookup: `${ADMIN}/lookup/riders`,
  signIn: (query: Query = {}) => href(`${ADMIN}/sign-in`, query),
  signOut: `${ADMIN}/sign-out`,
  assets: `${ADMIN}/assets`,
  /** The admin pages' stylesheets, in the order a page links them (src/http/admin-stylesheets.ts). */
  stylesheets: stylesheetHrefs(`${ADMIN}/assets`),
  reportAssets: `${ADMIN}/reports/assets`,
} as const;
