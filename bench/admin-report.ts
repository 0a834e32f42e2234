// The admin group's tables and verdicts (Markdown, as the other groups').
import type { AdminResult } from './admin';
import type { PageMeasure } from './admin-measure';
import type { TeamResult } from './admin-team';
import { ADMIN_TARGETS } from './admin-pages';
import type { Verdict } from './report';

const ms = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : '-');

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** "200" or "200 ×6, 500 ×2": the answers of a page, warm-up included. */
export function statusText(m: PageMeasure | undefined): string {
  if (!m) return '-';
  const entries = Object.entries(m.statuses);
  if (entries.length === 1) return entries[0][0] === '0' ? 'no answer' : entries[0][0];
  return entries.map(([status, n]) => `${status === '0' ? 'none' : status} ×${n}`).join(', ');
}

export function adminTable(r: AdminResult): string {
  const big = r.riders.toLocaleString('en-US');
  const small = r.compareRiders.toLocaleString('en-US');
  return table(
    [
      'page',
      'answers',
      'KB',
      `${big}: median ms (1)`,
      'p95 ms (1)',
      `median ms (${r.connections})`,
      `p95 ms (${r.connections})`,
      `${small}: median ms`,
      'ratio',
      'target',
    ],
    r.pages.map((p) => [
      p.name.replace(/\|/g, '\\|'),
      statusText(p.main),
      (p.main.bytes / 1024).toFixed(1),
      ms(p.main.one.medianMs),
      ms(p.main.one.p95Ms),
      ms(p.main.concurrent?.medianMs),
      ms(p.main.concurrent?.p95Ms),
      ms(p.compare?.one.medianMs),
      Number.isFinite(p.ratio) ? `${p.ratio.toFixed(2)}x` : '-',
      p.pass ? 'PASS' : 'FAIL',
    ]),
  );
}

export function isolationTable(r: AdminResult): string {
  const iso = r.isolation;
  if (!iso) return '';
  return table(
    [
      'run',
      'API req/s alone',
      'p99 ms alone',
      'API req/s with',
      'p99 ms with',
      'p99 ratio',
      'API non-2xx',
      'admin answers',
      'admin median ms',
    ],
    iso.runs.map((run, i) => [
      String(i + 1),
      run.without.rps.toFixed(0),
      ms(run.without.p99Ms),
      run.with.rps.toFixed(0),
      ms(run.with.p99Ms),
      `${run.p99Ratio.toFixed(2)}x`,
      String(run.without.non2xx + run.with.non2xx),
      Object.entries(run.admin.statuses)
        .map(([s, n]) => `${s} ×${n}`)
        .join(', '),
      ms(run.admin.latency.medianMs),
    ]),
  );
}

/** The team scenario: the supervisors alone, beside the deep pages and the API, and the deep pages' client. */
export function teamTable(r: AdminResult): string {
  const t = r.team;
  if (!t) return '';
  const row = (what: string, load: TeamResult['alone']) => [
    what,
    String(load.answers),
    load.pagesPerSecond.toFixed(1),
    ms(load.latency.medianMs),
    ms(load.latency.p95Ms),
    ms(load.latency.maxMs),
    Object.entries(load.statuses)
      .map(([s, n]) => `${s} ×${n}`)
      .join(', '),
    String(load.unexpected),
  ];
  return [
    table(
      ['clients', 'pages', 'pages/s', 'p50 ms', 'p95 ms', 'max ms', 'answers', 'unexpected'],
      [
        row(`${t.supervisors} supervisors`, t.alone),
        row(`${t.supervisors} supervisors, beside the deep pages and the API`, t.together),
        row('1 client on the deep pages, beside them', t.deep),
      ],
    ),
    '',
    `API (${t.api.path} by a random rider, ${t.api.connections} connections): ${t.api.alone.rps.toFixed(0)} req/s alone, ` +
      `${t.api.beside.rps.toFixed(0)} req/s beside the team (${t.api.ratio.toFixed(2)}x); non-2xx ${t.api.alone.non2xx + t.api.beside.non2xx}, errors ${t.api.alone.errors + t.api.beside.errors}.`,
    ...(t.alone.heaviest?.length
      ? [
          '',
          `The supervisors' time alone went most to: ${t.alone.heaviest
            .map((h) => `${h.page} ${(100 * h.share).toFixed(1)}% (${h.answers} answers, median ${ms(h.medianMs)} ms)`)
            .join('; ')}.`,
        ]
      : []),
  ].join('\n');
}

export function adminVerdicts(r: AdminResult): Verdict[] {
  const failing = r.pages.filter((p) => !p.pass);
  const verdicts: Verdict[] = [];
  if (r.pages.length)
    verdicts.push({
      target: `admin pages: median <= ${ADMIN_TARGETS.maxMedianMs} ms at ${r.riders} riders, within ${ADMIN_TARGETS.maxSizeRatio}x of ${r.compareRiders} riders, no unexpected answer`,
      pass: failing.length === 0,
      detail: `${r.pages.length - failing.length} of ${r.pages.length} pages pass${
        failing.length
          ? `; slowest failing: ${[...failing]
              .sort((a, b) => b.main.one.medianMs - a.main.one.medianMs)
              .slice(0, 3)
              .map((p) => `${p.name} ${ms(p.main.one.medianMs)} ms (${Number.isFinite(p.ratio) ? p.ratio.toFixed(2) : '-'}x)`)
              .join(', ')}`
          : ''
      }`,
    });
  const iso = r.isolation;
  if (iso)
    verdicts.push({
      target: `API p99 with ${iso.slowPages.length} slow admin pages running <= ${ADMIN_TARGETS.maxIsolationP99Ratio}x without, no 503`,
      pass: iso.pass,
      detail: `${iso.apiPath} by a random rider at ${iso.connections} connections: ${iso.medianP99Ratio.toFixed(2)}x (median of ${iso.runs.length}); API non-2xx ${iso.api503OrOther}, admin 503 ${iso.admin503}`,
    });
  const team = r.team;
  if (team)
    verdicts.push({
      target: `${team.supervisors} supervisors without pause: p95 <= ${team.targets.p95Ms} ms, also beside a client on the deep pages; every answer expected; the API >= ${team.targets.minApiRatio}x its rate alone, no failure`,
      pass: team.pass,
      detail: `p95 ${ms(team.alone.latency.p95Ms)} ms alone, ${ms(team.together.latency.p95Ms)} ms beside; unexpected ${team.alone.unexpected + team.together.unexpected + team.deep.unexpected}; API ${team.api.ratio.toFixed(2)}x`,
    });
  return verdicts;
}
