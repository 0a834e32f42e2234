import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { ruleListResources } from '../src/admin/attention';
import { allLists } from '../src/admin/lists';
import { spreadsheetSafe } from '../src/admin/stream-csv';
import { DEFAULT_ATTENTION } from '../src/config';
import { testDatabases } from './support/databases';
import { useOwnDatabase } from './support/own-database';
import { parseCsv } from './support/csv';

// Names a spreadsheet program would run as formulas (OWASP's "CSV injection"), in every admin CSV.
// The fixture's data with those names, in a database of this suite's own.
const NAME = `${testDatabases().fixture}_formulas`;
const HOSTILE: Array<[sql: string, written: string]> = [
  [`UPDATE companies SET name = '=HYPERLINK("http://x","click")' WHERE id = 1`, `'=HYPERLINK("http://x","click")`],
  [`UPDATE patrollers SET name = '@SUM(1+1)*cmd|'' /C calc''!A0' WHERE id = 1`, `'@SUM(1+1)*cmd|' /C calc'!A0`],
  [`UPDATE riders SET name = '+1-1 Ahmed' WHERE id = 101`, `'+1-1 Ahmed`],
  [`UPDATE riders SET name = E'\\tLee Park' WHERE id = 105`, `'\tLee Park`],
  [`UPDATE products SET name = '-Helmet' WHERE id = 10`, `'-Helmet`],
  [`UPDATE product_returns SET condition = '=1+1' WHERE id = 5001`, `'=1+1`],
  [`UPDATE product_exchanges SET exchange_type = E'\\r=cmd' WHERE id = 7002`, `'\r=cmd`],
  [`UPDATE questions SET text = '=IMPORTXML(A1)' WHERE id = 301`, `'=IMPORTXML(A1)`],
];
// Rider 101 failing: its last two checks failed.
const FAILING = `INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid)
  VALUES (9901, 101, 1, '2024-08-10 10:00:00+00', false, true, true), (9902, 101, 1, '2024-08-11 10:00:00+00', true, false, true)`;

const own = useOwnDatabase(NAME, [
  fs.readFileSync(path.join(__dirname, 'fixtures/fixture.sql'), 'utf8'),
  ...HOSTILE.map(([sql]) => sql),
  FAILING,
]);

// Every admin CSV, with filters that list the rows holding the names (the fixture's days are in 2024).
const CSVS = [
  ...allLists.map((list) => `/admin${list.path}.csv`),
  ...ruleListResources(DEFAULT_ATTENTION).map((list) => `/admin${list.path}.csv?as_of=2025-06-01`),
  '/admin/attention/failing-checks.csv?as_of=2024-08-15',
  '/admin/attention/losses.csv?as_of=2024-04-15',
  '/admin/questionnaire.csv?country_id=1',
];

describe('CSV downloads a spreadsheet opens as text', () => {
  it('neutralises a cell that begins with =, +, -, @, a tab or a carriage return; plain numbers stay numbers', () => {
    expect(['=1+1', '+1-1', '-Helmet', '@SUM(A1)', '\tx', '\r=x'].map(spreadsheetSafe)).toEqual([
      "'=1+1",
      "'+1-1",
      "'-Helmet",
      "'@SUM(A1)",
      "'\tx",
      "'\r=x",
    ]);
    expect(['-3', '+4', '-2.5', '12', '', 'Helmet', "'quoted", 'a=b', '2024-05-01'].map(spreadsheetSafe)).toEqual([
      '-3',
      '+4',
      '-2.5',
      '12',
      '',
      'Helmet',
      "'quoted",
      'a=b',
      '2024-05-01',
    ]);
  });

  const cells: string[] = [];
  it.each(CSVS)('%s: no cell a spreadsheet would run', async (url) => {
    const res = await request(own.app).get(url).expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const rows = parseCsv(res.text);
    expect(rows.length).toBeGreaterThan(1); // a header and rows: the names were listed
    for (const cell of rows.flat()) {
      if (/^[=+\-@\t\r]/.test(cell)) expect([url, cell]).toEqual([url, expect.stringMatching(/^[+-]?\d+(\.\d+)?$/)]);
    }
    cells.push(...rows.flat());
  });

  it('wrote each hostile name, with its leading quote, somewhere (an item as “product / variation”)', () => {
    expect(cells.length).toBeGreaterThan(100);
    for (const [, written] of HOSTILE) expect([written, cells.some((cell) => cell.startsWith(written))]).toEqual([written, true]);
  });
});
