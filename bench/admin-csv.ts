// The admin lists' CSV downloads (`--admin-csv-only`, or in a full `--only admin`): each list's whole
// CSV (no filter, its default order) downloaded signed in, timed to its first byte and its last, and
// beside it psql's COPY of the same rows in one statement: the CSV's cells when PostgreSQL writes the
// download (its COPY over `one` of csvStatements, src/admin/list-page.ts), else the list's columns as
// CSV. The statements are the service's own (csvStatements, as the download builds them), alternating
// download and COPY `runs` times; medians. Targets (issue 43): first byte at most 1 s, total at most
// 1.1× the COPY.
import http from 'node:http';
import { type ListResource, listContext, csvStatements, csvCopy, inlineParameters, links } from '../src/bench-entry';
import type { AdminBrowser } from './admin-client';
import { runCopyStatement, type PgTool } from './pg-side';
import { median } from './stats';

export const CSV_TARGETS = { firstByteSeconds: 1, totalOverCopy: 1.1 };

export interface CsvDownload {
  status: number;
  bytes: number;
  firstByteSeconds: number;
  seconds: number;
}

export interface AdminCsvResult {
  list: string;
  path: string;
  /** Who writes the download's cells: PostgreSQL (COPY) or the service (JavaScript). */
  writer: 'PostgreSQL' | 'JavaScript';
  rows: number;
  bytes: number;
  statuses: number[];
  firstByteSeconds: number;
  seconds: number;
  copySeconds: number;
  copyBytes: number;
  ratio: number;
  pass: boolean;
}

/** A download read to its end and dropped, timed to its first byte and its last. */
function download(browser: AdminBrowser, path: string, timeoutMs: number): Promise<CsvDownload> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, browser.base), { headers: { cookie: browser.cookieHeader } }, (res) => {
      let firstByte: number | undefined;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        firstByte ??= performance.now();
        bytes += chunk.length;
      });
      res.on('end', () => {
        const ended = performance.now();
        resolve({
          status: res.statusCode ?? 0,
          bytes,
          firstByteSeconds: ((firstByte ?? ended) - started) / 1000,
          seconds: (ended - started) / 1000,
        });
      });
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${path}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

/** The COPY of a list's rows in one statement, as the download writes them (see the top of this file). */
export async function oneCopyOf(list: ListResource): Promise<{ statement: string; writer: AdminCsvResult['writer'] }> {
  const context = listContext(list, {
    pool: undefined as never,
    streamPool: undefined as never,
    streamLimit: undefined as never,
    choices: undefined as never,
    tabs: [],
  });
  const values = { ...(await context.validate({})) };
  const { one, copy } = csvStatements(context, values);
  return copy
    ? { statement: csvCopy(list.table, one(), true), writer: 'PostgreSQL' }
    : { statement: `COPY (${inlineParameters(one())}) TO STDOUT WITH (FORMAT csv, HEADER)`, writer: 'JavaScript' };
}

export async function runAdminCsv(
  browser: AdminBrowser,
  lists: readonly ListResource[],
  { psql, url, runs, timeoutMs = 600000 }: { psql: PgTool; url: string; runs: number; timeoutMs?: number },
  log: (msg: string) => void,
): Promise<AdminCsvResult[]> {
  const results: AdminCsvResult[] = [];
  for (const list of lists) {
    const path = `${links.list(list.path)}.csv`;
    const { statement, writer } = await oneCopyOf(list);
    const downloads: CsvDownload[] = [];
    const copies: Array<{ seconds: number; bytes: number; rows: number }> = [];
    for (let run = 0; run < runs; run++) {
      downloads.push(await download(browser, path, timeoutMs));
      copies.push(await runCopyStatement(psql, url, statement, timeoutMs));
    }
    const seconds = median(downloads.map((d) => d.seconds));
    const copySeconds = median(copies.map((c) => c.seconds));
    const firstByteSeconds = median(downloads.map((d) => d.firstByteSeconds));
    const ratio = seconds / copySeconds;
    const statuses = downloads.map((d) => d.status);
    const result: AdminCsvResult = {
      list: list.title,
      path,
      writer,
      rows: copies[0].rows - 1,
      bytes: median(downloads.map((d) => d.bytes)),
      statuses,
      firstByteSeconds,
      seconds,
      copySeconds,
      copyBytes: copies[0].bytes,
      ratio,
      pass: statuses.every((s) => s === 200) && firstByteSeconds <= CSV_TARGETS.firstByteSeconds && ratio <= CSV_TARGETS.totalOverCopy,
    };
    log(
      `  ${path} (${writer}): ${result.rows} rows, ${(result.bytes / 1e6).toFixed(1)} MB; first byte ${firstByteSeconds.toFixed(2)} s, ` +
        `all ${seconds.toFixed(2)} s; COPY ${copySeconds.toFixed(2)} s (${ratio.toFixed(2)}x); ${statuses.join(', ')}`,
    );
    results.push(result);
  }
  return results;
}

export function adminCsvTable(results: readonly AdminCsvResult[]): string {
  const lines = [
    '| CSV | written by | rows | MB | first byte s | all s | COPY s | ratio | target |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of results)
    lines.push(
      `| ${r.path} | ${r.writer} | ${r.rows.toLocaleString('en')} | ${(r.bytes / 1e6).toFixed(1)} | ${r.firstByteSeconds.toFixed(2)} | ${r.seconds.toFixed(2)} | ${r.copySeconds.toFixed(2)} | ${r.ratio.toFixed(2)} | ${r.pass ? 'PASS' : 'FAIL'} (≤ ${CSV_TARGETS.firstByteSeconds} s, ≤ ${CSV_TARGETS.totalOverCopy}×) |`,
    );
  return lines.join('\n');
}
