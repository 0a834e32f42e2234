// Every rule of src/rules/ (RULES), each the same way: what a rule must have to work end to end is
// checked here for all of them, so a rule added to the list is tested without a line of its own. The
// database accepts a handling of each rule's name and no other; each rule has its section on Needs
// attention and its count on the home page; its rows are in its CSV; a listed row can be marked
// handled, leaves the rule, and Undo brings it back; its open points are sentences on the rider's page.
import { createSupervisor } from '../src/auth/supervisors';
import { DEFAULT_ATTENTION } from '../src/config';
import { toNative } from '../src/db/knex';
import { links } from '../src/html/links';
import { firstRows, RULE_NAMES, RULES, type RegisteredRule } from '../src/rules';
import { testAppWithAuth, type TestApp } from './support/app';
import { addAttentionRows, markHandled, signIn, type Agent } from './support/attention-scenario';
import { csrfToken, one, tableRows, textOf } from './support/html';

let t: TestApp;
let lead: Agent;
const password = 'rules-pass-123';

beforeAll(async () => {
  t = await testAppWithAuth('rules');
  await createSupervisor(t.owner, { username: 'lead', password });
  await addAttentionRows(t);
  lead = await signIn(t, 'lead', password);
});
afterAll(() => t.close());

/** The subject a handling of the row covers: its rider, or its 3PL. */
const subjectOf = (rule: RegisteredRule, row: Record<string, unknown>) => String(rule.subject === '3pl' ? row.company_id : row.rider_id);

/** The rule's rows today, as its section on Needs attention reads them, handled ones left out. */
async function listed(rule: RegisteredRule): Promise<string[]> {
  const q = { asOf: null, settings: DEFAULT_ATTENTION, scope: {}, hideHandled: true };
  const { rows } = await t.pool.query(toNative(firstRows(rule, q, 1000)));
  return rows.map((row) => subjectOf(rule, row));
}

describe('the rule names the database accepts', () => {
  it('are the rules of the list, no more and no fewer (migration 014’s CHECK)', async () => {
    const { rows } = await t.pool.query(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'access.attention_handled'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%rule%'`,
    );
    expect(rows).toHaveLength(1);
    const names = [...(rows[0].def as string).matchAll(/'([^']+)'::text/g)].map((m) => m[1]);
    expect([...names].sort()).toEqual([...RULE_NAMES].sort());
  });
});

describe.each(RULES.map((rule) => [rule.name, rule] as const))('the rule %s', (name, rule) => {
  it('has its section on Needs attention, with its title, meaning and rows, and its count on the home page', async () => {
    const html = (await lead.get('/admin/attention').expect(200)).text;
    const section = one(html, `section#${name}`);
    expect(textOf(one(section.toString(), 'h2'))).toContain(rule.title);
    expect(section.toString()).toContain(rule.means(DEFAULT_ATTENTION).slice(0, 30));
    expect(tableRows(section.toString()).length).toBeGreaterThan(0);
    const home = (await lead.get('/admin').expect(200)).text;
    expect(home).toMatch(new RegExp(`href="/admin/attention#${name}"><span class="figure">[1-9]`));
  });

  it('lists its rows in its CSV, each column of the table that is not a control', async () => {
    const res = await lead.get(`/admin/attention/${name}.csv`).expect(200);
    const [header, ...lines] = res.text.trimEnd().split('\n');
    const labels = rule.columns.map((column) => column.label);
    expect(
      header
        .replace(/^\uFEFF/, '')
        .split(',')
        .slice(0, labels.length),
    ).toEqual(labels);
    expect(lines.length).toBe((await listed(rule)).length);
  });

  it('takes a listed row off when it is marked handled, and Undo brings it back', async () => {
    const [subject] = await listed(rule);
    expect(subject).toBeDefined();
    const res = await markHandled(lead, name, subject, `Handled under ${name}`);
    expect(res.status).toBe(303);
    expect(await listed(rule)).not.toContain(subject);

    const handled = (await lead.get(`/admin/attention/${name}/handled`).expect(200)).text;
    expect(tableRows(handled).some((row) => row.includes(`Handled under ${name}`))).toBe(true);
    const [{ id }] = (
      await t.pool.query(`SELECT id FROM access.attention_handled WHERE rule = $1 AND undone_at IS NULL ORDER BY id DESC LIMIT 1`, [name])
    ).rows;
    await lead
      .post(`/admin/attention/handled/${id}/undo`)
      .type('form')
      .send({ _csrf: csrfToken(handled) })
      .expect(303);
    expect(await listed(rule)).toContain(subject);
  });

  it('says each of its open points on the rider’s page, in words, and a rider rule has one for each rider it lists', async () => {
    const q = { asOf: null, settings: DEFAULT_ATTENTION, scope: {} };
    const { rows } = await t.pool.query(toNative(rule.openPoint.rows(q)));
    expect(rows.length).toBeGreaterThan(0);
    const riders = [...new Set(rows.map((row) => String(row.rider_id)))];
    if (rule.subject === 'rider') {
      const { rows: listedRows } = await t.pool.query(toNative(firstRows(rule, q, 1000)));
      expect([...riders].sort()).toEqual([...new Set(listedRows.map((row) => String(row.rider_id)))].sort());
    }
    const [rider] = riders;
    const page = (await lead.get(links.rider(rider)).expect(200)).text;
    const shown = one(page, 'section.open-points')
      .querySelectorAll('li')
      .map((li) => textOf(li));
    const said = rows
      .filter((row) => String(row.rider_id) === rider)
      .map((row) =>
        rule.openPoint
          .sentence(row)
          .map((part) => (typeof part === 'string' ? part : part.auto))
          .join(''),
      );
    expect(said.length).toBeGreaterThan(0);
    for (const sentence of said) {
      expect(sentence).not.toMatch(/\bundefined\b|\bnull\b|\bNaN\b|\[object /);
      expect(shown).toContain(sentence);
    }
  });

  it('refuses a subject it does not list, and writes nothing', async () => {
    const before = (await t.pool.query('SELECT count(*)::int AS n FROM access.attention_handled')).rows[0].n;
    const res = await markHandled(lead, name, '999999999', 'Nothing to handle');
    expect(res.status).toBe(404);
    expect((await t.pool.query('SELECT count(*)::int AS n FROM access.attention_handled')).rows[0].n).toBe(before);
  });
});

/** The rider rules whose page keys can be read without the riders' 3PLs (RuleList.bare). */
const bareRules = RULES.flatMap((rule) => (rule.subject === 'rider' && rule.list.bare ? [rule] : []));

describe('a rule list’s keys read without the riders’ 3PLs (RuleList.bare)', () => {
  it('are offered by the rules whose filters need no rider column', () => {
    expect(bareRules.map((rule) => rule.name).sort()).toEqual(['failing-checks', 'overdue-items', 'unchecked']);
  });

  const daysAgo = (n: number) => new Date(Date.now() - n * 86400000).toISOString().slice(0, 10);
  const asked = [
    ['today, handled rows left out', { asOf: null, hideHandled: true }],
    ['today, every row', { asOf: null }],
    ['a past day', { asOf: daysAgo(30), hideHandled: true }],
    ['an item asked for', { asOf: null, hideHandled: true, item: { productId: '10' } }],
  ] as const;

  it.each(bareRules.flatMap((rule) => asked.map(([what, q]) => [rule.name, what, rule, q] as const)))(
    '%s, %s: the same rows, in the same order, as its core',
    async (name, _what, rule, asked) => {
      const q = { settings: DEFAULT_ATTENTION, scope: {}, ...asked };
      const rows = (builder: ReturnType<typeof rule.list.core>) =>
        t.pool
          .query(
            toNative(
              builder.clearSelect().select(`${rule.list.subject} as subject`, `${rule.list.tieBreak} as id`).orderBy(rule.list.tieBreak),
            ),
          )
          .then((r) => r.rows.map((row) => `${row.subject}/${row.id}`));
      let handled: string | undefined;
      if ('hideHandled' in asked && asked.asOf === null && !('item' in asked)) {
        // One rider marked handled: left out of both.
        [handled] = await listed(rule);
        expect((await markHandled(lead, name, handled, 'Left out of the keys')).status).toBe(303);
      }
      const bare = rule.list.bare!(q);
      expect(toNative(bare).text).not.toMatch(/\bcompanies\b/);
      const fromCore = await rows(rule.list.core(q));
      if (!('hideHandled' in asked) && !('item' in asked)) expect(fromCore.length).toBeGreaterThan(0);
      if (handled) expect(fromCore.filter((row) => row.startsWith(`${handled}/`))).toEqual([]);
      expect(await rows(bare)).toEqual(fromCore);
    },
  );
});
