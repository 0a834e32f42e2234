// `npm run bench -- … --record`: the run's tables written into docs/BENCHMARKS.md, each in its own
// region, so that the doc's figures are the latest run's, with the commit, day and machine they come
// from; re-running replaces them (git keeps the old ones). A region is the text between
// `<!-- bench:KEY@RIDERS -->` and `<!-- /bench:KEY@RIDERS -->`: KEY names the table (`streams`,
// `admin-team`, … as `section` names them in main.ts), RIDERS the dataset's size, so that the runs at
// 100,000 and 1,000,000 riders each keep their own. Only regions the doc has are written: placing a
// region is a decision about the doc, not the bench's.
import fs from 'node:fs';

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

/** Writes the sections into `file` (docs/BENCHMARKS.md); returns what recordSections says. */
export function recordInto(file: string, sections: readonly RecordedSection[], riders: number, header: string) {
  const result = recordSections(fs.readFileSync(file, 'utf8'), sections, riders, header);
  if (result.written.length) fs.writeFileSync(file, result.doc);
  return result;
}
