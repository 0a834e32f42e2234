import { renderView } from '../html/render';
import type { RiderReport } from './data';

export interface ReportDocument {
  title: string;
  reports: RiderReport[];
  /** The day the report stands at (`?as_of=`), or undefined for now. */
  asOf?: string;
  printedBy: string;
  /** Screen-only links and buttons above the first page; print CSS hides them. */
  toolbar: { back: { href: string; label: string }; pdf: Array<{ href: string; label: string }> };
  /**
   * A batch that is not all the riders the filters match: its first and last rider id, the most a
   * batch holds, the next batch when more riders follow, the first batch when this is a later one.
   */
  batch?: { first: string; last: string; size: number; next?: string; start?: string };
}

const helpers = {
  /** "1 item", "2 items". */
  plural: (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`,
  passFail: (ok: unknown) => (ok ? 'Pass' : 'Fail'),
};

/** The whole report document as HTML: the page the browser prints and the page Chromium turns into PDF. */
export function renderReport(doc: ReportDocument): Promise<string> {
  return renderView('reports/document', { ...helpers, asOf: undefined, batch: undefined, ...doc });
}
