import { recordSections } from '../bench/record';

// `npm run bench -- --record`: each table into its own region of docs/BENCHMARKS.md, per dataset size,
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
