// `npm run bench -- … --record`: the run's tables written into the docs of BENCH_DOCS (docs/runs/BENCHMARKS.md,
// and the admin pages' ADMIN-BENCHMARKS.md and ADMIN-PAGES-BENCHMARKS.md), each in its own region, so that
// the doc's figures are the latest run's, with the commit, day and machine they come from; re-running
// replaces them (git keeps the old ones). A region is the text between
// `<!-- bench:KEY@RIDERS -->` and `<!-- /bench:KEY@RIDERS -->`: KEY names the table (`streams`,
// `admin-team`, … as `section` names them in main.ts), RIDERS the dataset's size, so that the runs at
// 100,000 and 1,000,000 riders each keep their own. Only regions the doc has are written: placing a
// region is a decision about the doc, not the bench's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { git } from './main-git';

export interface RecordedSection {
  key: string;
  title: string;
  body: string;
}

const open = (id: string) => `<!-- bench:${id} -->`;
const close = (id: string) => `<!-- /bench:${id} -->`;

/**
 * `doc` with each section whose region it holds replaced by `header` (what ran, where, when), the
 * section's title and its body; which regions were written, and which sections had none.
 */
export function recordSections(
  doc: string,
  sections: readonly RecordedSection[],
  riders: number,
  header: string,
): { doc: string; written: string[]; missing: string[] } {
  const written: string[] = [];
  const missing: string[] = [];
  let out = doc;
  for (const { key, title, body } of sections) {
    const id = `${key}@${riders}`;
    const start = out.indexOf(open(id));
    const end = out.indexOf(close(id));
    if (start < 0 || end < start) {
      missing.push(id);
      continue;
    }
    const content = ['', `${header}`, '', `**${title}**`, '', body.trimEnd(), ''].join('\n');
    out = out.slice(0, start + open(id).length) + content + out.slice(end);
    written.push(id);
  }
  return { doc: out, written, missing };
}

/** Writes the sections into `file` (docs/runs/BENCHMARKS.md); returns what recordSections says. */
export function recordInto(file: string, sections: readonly RecordedSection[], riders: number, header: string) {
  const result = recordSections(fs.readFileSync(file, 'utf8'), sections, riders, header);
  if (result.written.length) fs.writeFileSync(file, result.doc);
  return result;
}

/** Where the recorded runs live, apart from the manual (relative to the project's root). */
export const BENCH_DOCS_DIR = path.join('docs', 'runs');

/** The docs the bench's tables are recorded in (BENCH_DOCS_DIR/…). */
export const BENCH_DOCS = ['BENCHMARKS.md', 'ADMIN-BENCHMARKS.md', 'ADMIN-PAGES-BENCHMARKS.md', 'ADMIN-CSV-BENCHMARKS.md'] as const;

/** The writers' recorded runs (bench/kept-writes, kept-keepup, kept-truncate); docs/WRITERS.md is their manual. */
export const WRITERS_RUNS = path.join(BENCH_DOCS_DIR, 'WRITERS-BENCHMARKS.md');

/**
 * Writes each section into whichever of `docs` (files of `dir`) holds its region: the regions written
 * (as `file: id`), and the sections none holds.
 */
export function recordInDocs(
  dir: string,
  sections: readonly RecordedSection[],
  riders: number,
  header: string,
  docs: readonly string[] = BENCH_DOCS,
) {
  const written: string[] = [];
  const found = new Set<string>();
  for (const doc of docs) {
    const result = recordInto(path.join(dir, doc), sections, riders, header);
    for (const id of result.written) {
      found.add(id);
      written.push(`${doc}: ${id}`);
    }
  }
  const missing = sections.map(({ key }) => `${key}@${riders}`).filter((id) => !found.has(id));
  return { written, missing };
}

/**
 * The code measured, as it was when the process started; the docs' changes (a table another run has just
 * written) are no change to the code.
 */
const codeAtStart = {
  commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
  dirty: git(['status', '--porcelain', '--', '.', ':(exclude)docs', ':(exclude)*.md']) !== '',
};

/**
 * The line above a table written by one of the bench's own tools (bench/kept-writes.ts,
 * bench/explain-list.ts): the command, the commit (and whether files differed from it), the day, the
 * dataset's size, the server's version, the machine and how busy it was.
 */
export function toolHeader(command: string, riders: number, serverVersion: string, day = new Date()): string {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  return (
    `\`${command}\` at commit ${codeAtStart.commit}${codeAtStart.dirty ? ' (with uncommitted changes)' : ''} on ${day.toISOString().slice(0, 10)}; ` +
    `${riders} riders, ${serverVersion.split(' on ')[0]}; ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${load} at the end.`
  );
}
