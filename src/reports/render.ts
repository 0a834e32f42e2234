import path from 'node:path';
import ejs from 'ejs';
import { projectRoot } from '../paths';
import type { RiderReport } from './data';

const viewsDir = path.join(projectRoot, 'views', 'reports');
// As in the admin pages: compiled templates are kept in production, re-read elsewhere.
const cache = process.env.NODE_ENV === 'production';

export interface ReportDocument {
  title: string;
  reports: RiderReport[];
  /** The day the report stands at (`?as_of=`), or undefined for now. */
  asOf?: string;
  printedBy: string;
  /** Screen-only links and buttons above the first page; print CSS hides them. */
  toolbar: { back: { href: string; label: string }; pdf: Array<{ href: string; label: string }> };
}

const helpers = {
  /** "1 item", "2 items". */
  plural: (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`,
  passFail: (ok: unknown) => (ok ? 'Pass' : 'Fail'),
};

/** The whole report document as HTML: the page the browser prints and the page Chromium turns into PDF. */
export function renderReport(doc: ReportDocument): Promise<string> {
  return ejs.renderFile(path.join(viewsDir, 'document.ejs'), { ...helpers, asOf: undefined, ...doc }, { cache });
}
