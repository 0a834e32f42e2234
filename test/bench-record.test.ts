import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DOCS, BENCH_DOCS_DIR, recordInDocs, recordSections, toolHeader, WRITERS_RUNS } from '../bench/record';
import { applierTable, commandOf, freshnessTable, regionOf } from '../bench/kept-writes';

// `npm run bench -- --record`: each table into its own region of docs/runs/BENCHMARKS.md, per dataset size,
// replacing the last run's; a section without a region leaves the doc alone.
const doc = [
  '# Benchmarks',
  'Method text.',
  '<!-- bench:streams@100000 -->',
  'old streams table',
  '<!-- /bench:streams@100000 -->',
  '<!-- bench:streams@1000000 -->',
  'old 1M table',
  '<!-- /bench:streams@1000000 -->',
  'Closing text.',
].join('\n');

describe('bench --record', () => {
  it('replaces the region of the run’s size only, with what ran and the table', () => {
    const {
      doc: out,
      written,
      missing,
    } = recordSections(
      doc,
      [
        { key: 'streams', title: 'Full streams', body: '| a | b |\n|---|---|\n| 1 | 2 |\n' },
        { key: 'admin-team', title: 'Supervisors at once', body: '| x |' },
      ],
      100000,
      '`npm run bench -- --only stream --record` at commit abc1234 on 2026-11-27',
    );
    expect(written).toEqual(['streams@100000']);
    expect(missing).toEqual(['admin-team@100000']);
    expect(out).not.toContain('old streams table');
    expect(out).toContain('old 1M table');
    expect(out).toContain(
      '<!-- bench:streams@100000 -->\n`npm run bench -- --only stream --record` at commit abc1234 on 2026-11-27\n\n**Full streams**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n<!-- /bench:streams@100000 -->',
    );
    expect(out.startsWith('# Benchmarks\nMethod text.\n')).toBe(true);
    expect(out.endsWith('Closing text.')).toBe(true);
  });

  it('gives the same doc when run again with the same figures, and leaves a doc without regions as it is', () => {
    const once = recordSections(doc, [{ key: 'streams', title: 'T', body: 'B' }], 1000000, 'H').doc;
    expect(recordSections(once, [{ key: 'streams', title: 'T', body: 'B' }], 1000000, 'H').doc).toBe(once);
    expect(recordSections('no regions', [{ key: 'streams', title: 'T', body: 'B' }], 100000, 'H')).toEqual({
      doc: 'no regions',
      written: [],
      missing: ['streams@100000'],
    });
  });
});

describe('bench --record into the docs', () => {
  it('writes each table into whichever doc holds its region, and names those no doc holds', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-docs-'));
    try {
      fs.writeFileSync(path.join(dir, 'A.md'), doc);
      fs.writeFileSync(path.join(dir, 'B.md'), '# Admin\n<!-- bench:admin-team@100000 -->\nold team\n<!-- /bench:admin-team@100000 -->\n');
      const sections = [
        { key: 'streams', title: 'Full streams', body: 'new streams' },
        { key: 'admin-team', title: 'Team', body: 'new team' },
        { key: 'admin-pages', title: 'Pages', body: 'new pages' },
      ];
      expect(recordInDocs(dir, sections, 100000, 'H', ['A.md', 'B.md'])).toEqual({
        written: ['A.md: streams@100000', 'B.md: admin-team@100000'],
        missing: ['admin-pages@100000'],
      });
      const a = fs.readFileSync(path.join(dir, 'A.md'), 'utf8');
      const b = fs.readFileSync(path.join(dir, 'B.md'), 'utf8');
      expect(a).toContain('new streams');
      expect(a).not.toContain('new team');
      expect(b).toContain('new team');
      expect(b).not.toContain('old team');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds a region at both sizes for every table of the admin group, in one of the bench docs', () => {
    const docs = BENCH_DOCS.map((doc) => fs.readFileSync(path.join(__dirname, '..', BENCH_DOCS_DIR, doc), 'utf8'));
    for (const key of ['admin-pages', 'admin-isolation', 'admin-team', 'admin-queue', 'admin-csv', 'explain-search', 'explain-3pl-sorts'])
      for (const riders of [100000, 1000000]) {
        const holding = docs.filter(
          (doc) => doc.includes(`<!-- bench:${key}@${riders} -->`) && doc.includes(`<!-- /bench:${key}@${riders} -->`),
        );
        expect({ region: `${key}@${riders}`, docs: holding.length }).toEqual({ region: `${key}@${riders}`, docs: 1 });
      }
  });
});

describe('the writers’ recorded runs', () => {
  it('hold a region at both sizes for every table the writers’ tools record, apart from the manual', () => {
    const runs = fs.readFileSync(path.join(__dirname, '..', WRITERS_RUNS), 'utf8');
    const manual = fs.readFileSync(path.join(__dirname, '..', 'docs', 'WRITERS.md'), 'utf8');
    for (const key of [
      'writers-keepup-full',
      'writers-keepup-steady',
      'writers-keepup-kinds',
      'kept-truncate',
      'writers-single',
      'writers-bulk',
    ])
      for (const riders of [100000, 1000000]) {
        const region = `${key}@${riders}`;
        expect({ region, runs: runs.includes(`<!-- bench:${region} -->`) && runs.includes(`<!-- /bench:${region} -->`) }).toEqual({
          region,
          runs: true,
        });
      }
    expect(manual).not.toContain('<!-- bench:');
    expect(manual).toContain('runs/WRITERS-BENCHMARKS.md');
  });
});

describe('the tools’ --record (kept-writes, explain-list)', () => {
  it('names the command, the commit, the day, the dataset, the server and the machine', () => {
    const header = toolHeader(
      'node dist/bench/kept-writes.js --url … --only freshness --record',
      100000,
      'PostgreSQL 15.20 (Debian 15.20-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc',
      new Date('2026-11-27T17:00:00Z'),
    );
    expect(header).toMatch(
      /^`node dist\/bench\/kept-writes\.js --url … --only freshness --record` at commit [0-9a-f]{7,}( \(with uncommitted changes\))? on 2026-11-27; 100000 riders, PostgreSQL 15\.20 \(Debian 15\.20-0\+deb12u1\); \d+ CPUs \(.+\), load average [\d.]+ [\d.]+ [\d.]+ at the end\.$/,
    );
    expect(header).toContain(`${os.cpus().length} CPUs`);
  });

  it('names the command as it ran, without the database’s URL or a file’s path, and the concurrent run without the applier apart', () => {
    expect(
      commandOf(['--url', 'postgres://u:secret@127.0.0.1/db', '--only', 'freshness,applier', '--json=/some/file.json', '--record']),
    ).toBe('node dist/bench/kept-writes.js --url … --only freshness,applier --json … --record');
    expect(regionOf('concurrent', true)).toBe('writers-concurrent');
    expect(regionOf('concurrent', false)).toBe('writers-concurrent-no-apply');
    // The applier's own phases do not depend on --no-apply.
    expect(regionOf('freshness', false)).toBe('writers-freshness');
    expect(regionOf('applier', false)).toBe('writers-applier');
  });

  const writers = [
    'Prose before.',
    '<!-- bench:writers-freshness@100000 -->',
    '| a committed write shown by the kept data | median 91 ms |',
    '<!-- /bench:writers-freshness@100000 -->',
    '<!-- bench:writers-applier@100000 -->',
    'typed by hand: 2.62 / 1.79 s',
    '<!-- /bench:writers-applier@100000 -->',
    '<!-- bench:writers-applier@1000000 -->',
    'not yet run',
    '<!-- /bench:writers-applier@1000000 -->',
  ].join('\n');

  it('writes the freshness and the applier’s figures of the run into their regions, in place of what was there', () => {
    const freshness = freshnessTable({ trials: 20, medianMs: 91.4, p90Ms: 180.2, maxMs: 217.6, backlogRows: 87266, backlogMs: 191_040 });
    const applier = applierTable({ rows: 13002, ms: [2700, 2620, 2500] });
    const { doc, written } = recordSections(
      writers,
      [
        { key: 'writers-freshness', title: 'Freshness', body: freshness },
        { key: 'writers-applier', title: 'Applier', body: applier },
      ],
      100000,
      'H',
    );
    expect(written).toEqual(['writers-freshness@100000', 'writers-applier@100000']);
    expect(doc).not.toContain('median 91 ms');
    expect(doc).not.toContain('typed by hand');
    expect(doc).toContain('not yet run');
    expect(doc).toContain('| 20 | 91 | 180 | 218 |');
    expect(doc).toContain('Left in the log by the phases before, applied first: 87266 rows in 191.0 s.');
    // The median of what ran, and the rows it applied a second.
    expect(doc).toContain('| rows of the log | median ms | rows applied a second |');
    expect(doc).toContain('| 13002 | 2620 | 4963 |');
    expect(freshnessTable({ trials: 3, medianMs: 80, p90Ms: 90, maxMs: 95, backlogRows: 0, backlogMs: 1 })).toContain(
      'Nothing was left in the log before the trials.',
    );
  });
});
