// The work queue for a team (`--only admin`, or `--admin-queue-only` alone): the pages a lead opens to
// split the work (Needs attention with its exact counts, at today, at a past day and for one 3PL, the
// overview, each rider rule's first page and a deep one, the rider search), each timed signed in, and
// one batch as a lead writes it: all the rows of one rule and one 3PL, the smallest such selection of
// at least BATCH_ROWS rows a batch may take, confirmed, written and undone, QUEUE_BATCH_RUNS times. The batch
// writes only the service's own notes (access.attention_handled) and each run is undone, so the rules'
// rows are as before.
import type pg from 'pg';
import { BATCH_MAX, riderRules } from '../src/bench-entry';
import { AdminBrowser, connection, csrfTokenOf, type Timed } from './admin-client';
import { latencyStats, type LatencyStats } from './admin-pages';
import { withClient } from './dataset';
import { median } from './stats';

/** The rows a lead handles at once in the issue's figure: the batch measured is the smallest selection of at least this many. */
export const BATCH_ROWS = 1_000;
export const QUEUE_BATCH_RUNS = 3;
export const QUEUE_PAGE_RUNS = 5;

export interface QueuePage {
  name: string;
  path: string;
  statuses: Record<string, number>;
  stats: LatencyStats;
}

export interface QueueBatch {
  rule: string;
  company: string;
  rows: number;
  /** Median ms of the confirmation (the count), the write (one statement) and the Undo of the batch. */
  confirmMs: number;
  writeMs: number;
  undoMs: number;
  /** Every answer's status, for the report: 200 (confirmation), 303 (write, undo). */
  statuses: Record<string, number>;
}

export interface QueueResult {
  riders: number;
  pages: QueuePage[];
  batch?: QueueBatch;
  /** Why no batch was measured (no selection within a batch's bounds). */
  batchSkipped?: string;
}

/** The values the pages ask for: the 3PL with the most riders, and a past day with history on both sides. */
async function queueValues(client: pg.Client): Promise<{ company: string; asOf: string; companies: string[]; rider: string }> {
  const { rows: companies } = await client.query<{ name: string }>(
    `SELECT c.name FROM companies c JOIN riders r ON r.company_id = c.id GROUP BY c.id, c.name ORDER BY count(*) DESC, c.name`,
  );
  const { rows } = await client.query<{ day: string }>(
    `SELECT to_char(max(checked_at) - interval '90 days', 'YYYY-MM-DD') AS day FROM patrol_checks`,
  );
  // A rider holding items, whose page a supervisor opens from the queue.
  const { rows: held } = await client.query<{ id: string }>(
    `SELECT rider_id::text AS id FROM kept_riders WHERE active_items > 0 ORDER BY rider_id LIMIT 1`,
  );
  return {
    company: companies[0]?.name ?? '',
    asOf: rows[0]?.day ?? '',
    companies: companies.map((c) => c.name),
    rider: held[0]?.id ?? '1',
  };
}

const query = (params: Record<string, string>) => {
  const text = new URLSearchParams(params).toString();
  return text ? `?${text}` : '';
};

/** The pages, in the order a lead opens them. */
export function queuePages(values: { company: string; asOf: string; rider: string }): Array<{ name: string; path: string }> {
  return [
    { name: 'the overview', path: '/admin' },
    { name: 'Needs attention', path: '/admin/attention' },
    { name: 'Needs attention, the rows given to me (mine=1)', path: '/admin/attention?mine=1' },
    { name: `Needs attention at a past day (as_of=${values.asOf})`, path: `/admin/attention${query({ as_of: values.asOf })}` },
    { name: `Needs attention for one 3PL (3pl=${values.company})`, path: `/admin/attention${query({ '3pl': values.company })}` },
    ...riderRules.flatMap((rule) => [
      { name: `${rule.name}: page 1`, path: `/admin/attention/${rule.name}` },
      { name: `${rule.name}: page 40`, path: `/admin/attention/${rule.name}?page=40` },
    ]),
    { name: 'rider lookup (q=mo)', path: '/admin/lookup/riders?q=mo' },
    { name: 'rider search (q=mo)', path: '/admin/search?q=mo' },
    { name: `a rider's page (${values.rider})`, path: `/admin/riders/${values.rider}` },
    { name: 'your settings', path: '/admin/preferences' },
  ];
}

async function timePage(browser: AdminBrowser, page: { name: string; path: string }): Promise<QueuePage> {
  const agent = connection();
  const answers: Timed[] = [];
  try {
    for (let i = 0; i <= QUEUE_PAGE_RUNS; i++) answers.push(await browser.get(page.path, agent));
  } finally {
    agent.destroy();
  }
  const statuses: Record<string, number> = {};
  for (const a of answers) statuses[String(a.status)] = (statuses[String(a.status)] ?? 0) + 1;
  // The first answer warms the page's code and plans; the others are timed.
  return { ...page, statuses, stats: latencyStats(answers.slice(1).map((a) => a.ms)) };
}

/** The count a batch's confirmation names ("Mark <strong>1,839</strong> riders of …"), or undefined when it refused. */
export function confirmedCount(html: string): number | undefined {
  const box = /class="confirm-box"[^>]*>\s*<p>Mark <strong>([\d,]+)<\/strong>/.exec(html);
  return box ? Number(box[1].replace(/,/g, '')) : undefined;
}

/** The Undo form of the newest batch on a rule's handled view. */
export function newestBatchUndo(html: string): string | undefined {
  const list = /<ul class="batches">([\s\S]*?)<\/ul>/.exec(html)?.[1];
  return list ? /action="(\/admin\/attention\/batches\/\d+\/undo)"/.exec(list)?.[1] : undefined;
}

/** Every rider rule × 3PL a batch may take whole, with its count: the candidates for the measured batch. */
async function candidates(browser: AdminBrowser, companies: readonly string[], log: (msg: string) => void) {
  const out: Array<{ rule: string; company: string; rows: number }> = [];
  for (const rule of riderRules) {
    const list = await browser.text(`/admin/attention/${rule.name}`);
    const csrf = csrfTokenOf(list.body);
    if (list.status !== 200 || !csrf) throw new Error(`/admin/attention/${rule.name} answered ${list.status} without a form token`);
    for (const company of companies) {
      const fields = { _csrf: csrf, back: `/admin/attention/${rule.name}`, which: 'all', '3pl': company, note: 'bench: counted' };
      const answer = await browser.post(`/admin/attention/${rule.name}/batch`, fields);
      const rows = confirmedCount(answer.body);
      if (answer.status === 200 && rows !== undefined) out.push({ rule: rule.name, company, rows });
      else log(`    ${rule.name} × ${company}: ${answer.status === 400 ? `more than ${BATCH_MAX} rows` : `answered ${answer.status}`}`);
    }
  }
  return out;
}

async function measureBatch(browser: AdminBrowser, pick: { rule: string; company: string; rows: number }): Promise<QueueBatch> {
  const statuses: Record<string, number> = {};
  const seen = (status: number) => (statuses[String(status)] = (statuses[String(status)] ?? 0) + 1);
  const times = { confirm: [] as number[], write: [] as number[], undo: [] as number[] };
  const path = `/admin/attention/${pick.rule}`;
  let rows = pick.rows;
  for (let i = 0; i < QUEUE_BATCH_RUNS; i++) {
    const csrf = csrfTokenOf((await browser.text(path)).body)!;
    const fields = { _csrf: csrf, back: path, which: 'all', '3pl': pick.company, note: `bench batch ${i + 1}` };
    const confirm = await browser.post(`${path}/batch`, fields);
    seen(confirm.status);
    times.confirm.push(confirm.ms);
    rows = confirmedCount(confirm.body) ?? rows;
    const write = await browser.post(`${path}/batch`, { ...fields, confirm: 'yes' });
    seen(write.status);
    times.write.push(write.ms);
    if (write.status !== 303) throw new Error(`the batch's write answered ${write.status}`);
    const handled = (await browser.text(`${path}/handled`)).body;
    const undo = newestBatchUndo(handled);
    if (!undo) throw new Error(`${path}/handled lists no batch to undo`);
    const undone = await browser.post(undo, { _csrf: csrfTokenOf(handled)!, back: path });
    seen(undone.status);
    times.undo.push(undone.ms);
    if (undone.status !== 303) throw new Error(`the batch's Undo answered ${undone.status}`);
  }
  return {
    ...pick,
    rows,
    confirmMs: median(times.confirm),
    writeMs: median(times.write),
    undoMs: median(times.undo),
    statuses,
  };
}

/** The queue's pages and one batch, on a service whose supervisor `browser` is signed in. */
export async function runQueue(url: string, browser: AdminBrowser, riders: number, log: (msg: string) => void): Promise<QueueResult> {
  const values = await withClient(url, queueValues);
  const result: QueueResult = { riders, pages: [] };
  for (const page of queuePages(values)) {
    const measured = await timePage(browser, page);
    result.pages.push(measured);
    log(
      `  ${page.name}: median ${measured.stats.medianMs.toFixed(1)} ms, p95 ${measured.stats.p95Ms.toFixed(1)} ms (${JSON.stringify(measured.statuses)})`,
    );
  }
  log(`  batches: each rider rule × 3PL a batch may take whole (at most ${BATCH_MAX.toLocaleString('en')} rows)`);
  const found = await candidates(browser, values.companies, log);
  const enough = found.filter((c) => c.rows >= BATCH_ROWS).sort((a, b) => a.rows - b.rows);
  const pick = enough[0] ?? [...found].sort((a, b) => b.rows - a.rows)[0];
  if (!pick) {
    result.batchSkipped = `every rider rule × 3PL selects more than ${BATCH_MAX.toLocaleString('en')} rows (a batch's bound) or none`;
    log(`  no batch measured: ${result.batchSkipped}`);
    return result;
  }
  result.batch = await measureBatch(browser, pick);
  const b = result.batch;
  log(
    `  a batch of ${b.rows} rows (${b.rule}, 3PL ${b.company}), median of ${QUEUE_BATCH_RUNS}: confirmation ${b.confirmMs.toFixed(0)} ms, write ${b.writeMs.toFixed(0)} ms, Undo ${b.undoMs.toFixed(0)} ms`,
  );
  return result;
}

export const queueTargets = { attentionMs: (riders: number) => (riders >= 1_000_000 ? 450 : 300), batchMs: 2000 };

/** The queue's table: each page's median and p95, then the batch's three steps, against the issue's targets. */
export function queueTable(r: QueueResult): string {
  const target = queueTargets.attentionMs(r.riders);
  const lines = ['| page | answers | median ms | p95 ms | target |', '|---|---|---:|---:|---|'];
  const answers = (s: Record<string, number>) =>
    Object.entries(s)
      .map(([k, n]) => (Object.keys(s).length === 1 ? k : `${k} ×${n}`))
      .join(', ');
  for (const p of r.pages) {
    const judged = p.path.startsWith('/admin/attention') && !p.path.startsWith('/admin/attention/');
    const verdict = judged ? `${p.stats.medianMs <= target && answers(p.statuses) === '200' ? 'PASS' : 'FAIL'} (≤ ${target})` : '-';
    lines.push(
      `| ${p.name.replace(/\|/g, '\\|')} | ${answers(p.statuses)} | ${p.stats.medianMs.toFixed(1)} | ${p.stats.p95Ms.toFixed(1)} | ${verdict} |`,
    );
  }
  if (r.batch) {
    const b = r.batch;
    const total = b.confirmMs + b.writeMs;
    lines.push(
      `| a batch of ${b.rows.toLocaleString('en')} rows (${b.rule}, 3PL ${b.company.replace(/\|/g, '\\|')}): confirmation / write / Undo | ${answers(b.statuses)} | ${b.confirmMs.toFixed(0)} / ${b.writeMs.toFixed(0)} / ${b.undoMs.toFixed(0)} | - | ${b.rows >= BATCH_ROWS && total <= queueTargets.batchMs ? 'PASS' : b.rows >= BATCH_ROWS ? 'FAIL' : '-'} (confirmation + write ≤ ${queueTargets.batchMs}) |`,
    );
  } else if (r.batchSkipped) lines.push(`| a batch | - | - | - | not measured: ${r.batchSkipped} |`);
  return lines.join('\n');
}
