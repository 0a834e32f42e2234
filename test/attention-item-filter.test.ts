// "Items past their exchange day" narrowed to one item (the Item picker of its list): only the riders
// holding an item of that product, or that variation, past its exchange day, on the page and in the CSV;
// and a batch of "all the rows the filters select" covers those riders only. On a copy of the demo data of
// its own (the batch writes handlings), as of today.
import { createSupervisor } from '../src/auth/supervisors';
import { testAppWithAuth, type TestApp } from './support/app';
import { markAllHandled, signIn, type Agent } from './support/attention-scenario';
import { parseCsv } from './support/csv';
import { hiddenFields, one, parseHtml, textOf } from './support/html';

let t: TestApp;
let a: Agent;
beforeAll(async () => {
  t = await testAppWithAuth('attentionItems');
  await createSupervisor(t.owner, { username: 'items-lead', password: 'items-pass-1234' });
  a = await signIn(t, 'items-lead', 'items-pass-1234');
});
afterAll(() => t.close());

/** The rule's CSV as rows of its rider and its items ("Standard Helmet / XL"), in the list's order. */
async function overdue(query = ''): Promise<Array<{ rider: string; items: string[] }>> {
  const [header, ...rows] = parseCsv((await a.get(`/admin/attention/overdue-items.csv${query}`).expect(200)).text);
  const [rider, items] = [header.indexOf('Rider ID'), header.indexOf('Items')];
  return rows.map((row) => ({ rider: row[rider], items: row[items].replace(/^\d+ items?: /, '').split('; ') }));
}

describe('the overdue rule narrowed to one item', () => {
  it('lists the riders holding that product, or that variation, past its exchange day, and no one else', async () => {
    const all = await overdue();
    // A product some riders hold overdue and others do not.
    const { rows: products } = await t.pool.query<{ id: string; name: string }>('SELECT id::text, name FROM products ORDER BY id');
    const holding = (rows: typeof all, prefix: string) => rows.filter((row) => row.items.some((item) => item.startsWith(prefix)));
    const product = products.find((p) => {
      const n = holding(all, `${p.name} / `).length;
      return n > 1 && n < all.length;
    })!;
    expect(product).toBeDefined();
    const byProduct = await overdue(`?product_id=${product.id}`);
    expect(byProduct).toEqual(holding(all, `${product.name} / `));

    // A variation of it: fewer riders still, each holding that very variation.
    const { rows: variations } = await t.pool.query<{ id: string; name: string }>(
      'SELECT id::text, name FROM product_variations WHERE product_id = $1 ORDER BY id',
      [product.id],
    );
    const variation = variations.find((v) => holding(byProduct, `${product.name} / ${v.name}`).length > 0)!;
    const byVariation = await overdue(`?product_id=${product.id}&variation_id=${variation.id}`);
    expect(byVariation).toEqual(holding(byProduct, `${product.name} / ${variation.name}`));
    expect(byVariation.length).toBeLessThan(byProduct.length);

    // The page: the picker shows the item chosen, and the rows are the CSV's first ones.
    const html = (await a.get(`/admin/attention/overdue-items?product_id=${product.id}`).expect(200)).text;
    expect(one(html, 'select#f-item option[selected]').getAttribute('value')).toBe(`${product.id}:`);
    const ids = parseHtml(html)
      .querySelectorAll('table.list tbody td[data-label="Rider ID"]')
      .map((td) => textOf(td));
    expect(ids).toEqual(byProduct.slice(0, ids.length).map((row) => row.rider));
  });

  it('handles "all the rows the filters select" as those riders only, and its confirmation says so', async () => {
    const { rows } = await t.pool.query<{ id: string }>(
      `SELECT p.id::text FROM products p ORDER BY (SELECT count(*) FROM assignments a WHERE a.product_id = p.id), p.id LIMIT 1`,
    );
    const narrowed = await overdue(`?product_id=${rows[0].id}`);
    expect(narrowed.length).toBeGreaterThan(0);
    const html = (await a.get(`/admin/attention/overdue-items?product_id=${rows[0].id}`).expect(200)).text;
    const hidden = hiddenFields(html, 'form#batch-form');
    expect(hidden.item).toBe(`${rows[0].id}:`);
    const confirmation = await markAllHandled(a, 'overdue-items', html, 'Exchanges booked for this item');
    expect(confirmation).toContain(
      `Mark ${narrowed.length.toLocaleString('en')} ${narrowed.length === 1 ? 'rider' : 'riders'} of “Items past their exchange day” handled (of the item chosen)`,
    );
    const { rows: handled } = await t.pool.query<{ id: string }>(
      `SELECT subject_id::text AS id FROM access.attention_handled WHERE rule = 'overdue-items' AND undone_at IS NULL AND superseded_at IS NULL ORDER BY 1`,
    );
    expect(handled.map((row) => row.id)).toEqual(narrowed.map((row) => row.rider).sort());
  });
});
