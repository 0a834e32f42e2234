import express from 'express';
import request from 'supertest';
import { createAdminRouter } from '../src/admin/router';
import { freePort } from '../src/db/embedded';
import { createPool } from '../src/db/pool';
import { requestId } from '../src/http/request-id';
import { testApp, type TestApp } from './support/app';
import { fieldError, one, textOf } from './support/html';

let t: TestApp;
beforeAll(() => (t = testApp('fixture')));
afterAll(() => t.close());

// In a supervisor's words: an ID, without the 19-digit bound the API states.
const BIGINT_RULE = 'must be an ID: a whole number, 1 or more';

describe('an invalid filter value', () => {
  it.each([
    ['/admin/checks', 'rider_id', '12.5'],
    ['/admin/checks', 'tpatroller_id', '0'],
    ['/admin/equipment/riders', 'rider_id', '-1'],
  ])('on %s (%s=%s) is a 400 with the message beside the field and the form otherwise whole', async (path, name, value) => {
    const res = await request(t.app)
      .get(`${path}?${name}=${encodeURIComponent(value)}`)
      .expect(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(fieldError(res.text, name)).toBe(`“${value}” ${BIGINT_RULE}`);
    expect(res.text).toContain(`name="${name}" type="text" value="${value}"`);
    expect(res.text).toContain(`aria-invalid="true" aria-describedby="f-${name}-error"`);
    expect(res.text).toContain('<nav class="site-nav" aria-label="Main">');
    expect(res.text).toContain('Nothing is listed until the filters are fixed.');
  });

  it.each([
    ['/admin/equipment/assignments', 'product_id', '1.5', 'item', 'Product ID'],
    ['/admin/equipment/returns', 'variation_id', '99999999999999999999', 'item', 'Variation ID'],
    ['/admin/equipment/exchanges', 'new_product_id', '1e3', 'new_item', 'New product ID'],
  ])('on %s (%s=%s) is a 400 with the message beside the item picker that stands for it', async (path, name, value, picker, label) => {
    const res = await request(t.app)
      .get(`${path}?${name}=${encodeURIComponent(value)}`)
      .expect(400);
    expect(fieldError(res.text, picker)).toBe(`${label} “${value}” ${BIGINT_RULE}`);
    expect(res.text).toContain(
      `<select id="f-${picker}" name="${picker}" data-searchable aria-invalid="true" aria-describedby="f-${picker}-error">`,
    );
    expect(res.text).toContain('Nothing is listed until the filters are fixed.');
  });

  it('takes a name where an ID goes only when exactly one person has it, else says so beside the field', async () => {
    const none = await request(t.app).get('/admin/checks?rider_id=Nobody%20Here').expect(400);
    expect(fieldError(none.text, 'rider_id')).toBe('“Nobody Here” is no rider’s name: give a name from the suggestions, or the ID');
    // A 3PL name from an old link stays selected, and says why nothing matches it.
    const company = await request(t.app).get('/admin/checks?3pl=Swift').expect(200);
    expect(company.text).toContain('<option value="Swift" selected>Swift (no 3PL of this name)</option>');
    const picker = await request(t.app).get('/admin/equipment/assignments?item=twelve').expect(400);
    expect(fieldError(picker.text, 'item')).toBe('must be one of the listed items');
  });

  it('takes a typed name holding a NUL as nobody’s, on every list and CSV: a 400 beside the field, never a 500', async () => {
    const lists = [
      '/admin/checks',
      '/admin/equipment/riders',
      '/admin/equipment/assignments',
      '/admin/equipment/returns',
      '/admin/equipment/exchanges',
    ];
    for (const path of [...lists, ...lists.map((list) => `${list}.csv`)]) {
      const res = await request(t.app).get(`${path}?rider_id=Ahmed%00Khan`);
      expect([path, res.status, fieldError(res.text, 'rider_id')]).toEqual([
        path,
        400,
        '“Ahmed\u0000Khan” is no rider’s name: give a name from the suggestions, or the ID',
      ]);
    }
    const patroller = await request(t.app).get('/admin/checks?tpatroller_id=Ali%00').expect(400);
    expect(fieldError(patroller.text, 'tpatroller_id')).toBe(
      '“Ali\u0000” is no patroller’s name: give a name from the suggestions, or the ID',
    );
  });

  it('names every bad field at once, keeps the good ones, and shows a bad date as text to correct', async () => {
    const res = await request(t.app).get('/admin/checks?check_date_from=2024-02-30&is_validation=maybe&3pl=Swift%20%26%20Co').expect(400);
    expect(fieldError(res.text, 'check_date_from')).toBe('“2024-02-30” must be a real calendar day written YYYY-MM-DD');
    expect(fieldError(res.text, 'is_validation')).toBe('“maybe” must be one of: Passed, Failed');
    expect(res.text).toMatch(/name="check_date_from" type="text" [^>]*value="2024-02-30"/);
    expect(res.text).toContain('<option value="Swift &amp; Co" selected>Swift &amp; Co</option>');
    expect(res.text).toContain('<a href="#f-check_date_from">Checked from</a>');
  });

  it('puts a range in the wrong order on its upper bound, naming the other field by its label', async () => {
    const res = await request(t.app).get('/admin/equipment/assignments?assign_date_from=2024-06-01&assign_date_to=2024-05-01').expect(400);
    expect(fieldError(res.text, 'assign_date_to')).toBe('“2024-05-01” must not be before Assigned from (2024-06-01)');
    const checks = await request(t.app).get('/admin/checks?check_date_from=2024-06-01&check_date_to=2024-05-01').expect(400);
    expect(fieldError(checks.text, 'check_date_to')).toBe('“2024-05-01” must not be before Checked from (2024-06-01)');
  });

  it('shows every problem of a pasted link at once: a name that matches nobody and a bad date, each beside its field', async () => {
    const res = await request(t.app).get('/admin/checks?rider_id=Nobody%20Here&check_date_from=2024-02-30&sort=nope').expect(400);
    expect(fieldError(res.text, 'rider_id')).toBe('“Nobody Here” is no rider’s name: give a name from the suggestions, or the ID');
    expect(fieldError(res.text, 'check_date_from')).toBe('“2024-02-30” must be a real calendar day written YYYY-MM-DD');
    expect(textOf(one(res.text, '.error-summary'))).toContain('Sort by must be one of: Checked at, Check, Rider ID, 3PL, Patroller ID');
    // A bad item and a bad rider name on the same form, and a repeated field: all three in one answer.
    const three = await request(t.app).get('/admin/equipment/returns?item=twelve&rider_id=Nobody&return_date_to=x&3pl=a&3pl=b').expect(400);
    expect(fieldError(three.text, 'item')).toBe('must be one of the listed items');
    expect(fieldError(three.text, 'rider_id')).toBe('“Nobody” is no rider’s name: give a name from the suggestions, or the ID');
    expect(fieldError(three.text, 'return_date_to')).toBe('“x” must be a real calendar day written YYYY-MM-DD');
    expect(fieldError(three.text, '3pl')).toBe('must be given at most once');
  });

  it('leaves the API’s words to the API: /v2 still names the parameters', async () => {
    const res = await request(t.app).get('/v2/assign-list?assign_date_from=2024-06-01&assign_date_to=2024-05-01').expect(400);
    expect(JSON.stringify(res.body)).toContain('must not be before assign_date_from (2024-06-01)');
  });

  it('rejects a closed-set value, an unknown sort, a page size off the list and an unknown name', async () => {
    const bad = async (query: string) => (await request(t.app).get(`/admin/equipment/exchanges?${query}`).expect(400)).text;
    expect(fieldError(await bad('replacement_type=lost'), 'replacement_type')).toBe('“lost” must be one of: Lost, Accident, Exchange');
    expect(await bad('sort=e.id%3B%20DROP%20TABLE%20riders')).toContain(
      'Sort by must be one of: Exchanged at, Rider ID, 3PL, Exchange type, Replacement',
    );
    expect(await bad('dir=up')).toContain('Order must be one of: smallest first, largest first');
    expect(await bad('per_page=many')).toContain('Rows per page must be one of: 25, 50, 100'); // a number is taken as the nearest (303)
    expect(await bad('page=0')).toContain('Page must be a whole number from 1 to 1000000');
    expect(await bad('rider=101')).toContain('rider is not a filter of this page');
    expect(await bad('rider_id=101&rider_id=102')).toContain('must be given at most once');
  });

  it('is a 400 page too on the CSV address, never a half-written file', async () => {
    const res = await request(t.app).get('/admin/checks.csv?rider_id=1x').expect(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(fieldError(res.text, 'rider_id')).toBe(`“1x” is no rider’s name: give a name from the suggestions, or the ID`);
  });

  it('on the home page, search and questionnaire is a 400 beside its field as well', async () => {
    expect(fieldError((await request(t.app).get('/admin?as_of=2024-13-01').expect(400)).text, 'as_of')).toBe(
      '“2024-13-01” must be a real calendar day written YYYY-MM-DD',
    );
    expect(
      fieldError(
        (
          await request(t.app)
            .get(`/admin/search?q=${'x'.repeat(256)}`)
            .expect(400)
        ).text,
        'q',
      ),
    ).toMatch(/must be at most 255 characters/);
    expect(fieldError((await request(t.app).get('/admin/questionnaire?country_id=AE').expect(400)).text, 'country_id')).toBe(
      `“AE” ${BIGINT_RULE}`,
    );
  });
});

describe('the error pages', () => {
  it('answers unknown admin paths with an HTML 404 in the site frame, and other methods with 405', async () => {
    const res = await request(t.app).get('/admin/nothing-here').expect(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('There is no page at this address.');
    expect(res.text).toContain('<nav class="site-nav" aria-label="Main">');
    const post = await request(t.app).post('/admin/checks').expect(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(post.headers['content-type']).toMatch(/^text\/html/);
    // Outside /admin the API's own error tail still answers.
    expect((await request(t.app).get('/nothing-here').expect(404)).headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('shows a 500 with the request id only: no message, stack or SQL, and logs the cause', async () => {
    // A real database without the service's tables: every query fails as a bug would.
    const logs: string[] = [];
    const empty = createPool(process.env.TEST_ADMIN_URL!, t.config);
    try {
      const app = express()
        .use(requestId)
        .use('/admin', createAdminRouter({ pool: empty, log: (m) => logs.push(m) }));
      const res = await request(app).get('/admin/checks').set('X-Request-Id', 'req-500-test').expect(500);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('<code class="request-id">req-500-test</code>');
      expect(res.text).not.toMatch(/patrol_checks|Error:|at .*\.ts|SELECT/);
      // An unexpected failure keeps its stack in the log.
      expect(logs.join('\n')).toMatch(/\[req-500-test\] GET \/admin\/checks -> 500: error: relation "\w+" does not exist\n\s+at /);
    } finally {
      await empty.end();
    }
  });

  it('says the database is not answering (503) when it cannot be reached', async () => {
    // A real server address where nothing listens.
    const logs: string[] = [];
    const down = createPool(`postgres://postgres@127.0.0.1:${await freePort()}/postgres`, t.config);
    try {
      const app = express()
        .use(requestId)
        .use('/admin', createAdminRouter({ pool: down, log: (m) => logs.push(m) }));
      const res = await request(app).get('/admin').set('X-Request-Id', 'req-503-test').expect(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.text).toContain('The database is not answering; try again shortly.');
      // An expected failure is one line with the request id and the reason, no stack.
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(/^\[req-503-test\] GET \/admin -> 503: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    } finally {
      await down.end();
    }
  });
});

describe('content security', () => {
  const pages = [
    '/admin',
    '/admin?as_of=2024-06-01',
    '/admin/attention',
    '/admin/checks',
    '/admin/checks?rider_id=x',
    '/admin/checks/9001',
    '/admin/checks/9002',
    '/admin/equipment/assignments',
    '/admin/equipment/riders',
    '/admin/equipment/returns',
    '/admin/equipment/exchanges',
    '/admin/riders/101',
    '/admin/search?q=a',
    '/admin/questionnaire?country_id=1',
    '/admin/nope',
  ];

  it.each(pages)('%s has a strict CSP, no inline script and no inline event handlers', async (path) => {
    const res = await request(t.app).get(path);
    const csp = res.headers['content-security-policy'];
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).toMatch(/script-src-attr 'none'/);
    expect(csp).toMatch(/default-src 'self'/);
    // At most the site's own suggestions script, on pages with a rider field; nothing inline.
    const scripts = res.text.match(/<script\b[^>]*>[^<]*<\/script>/gi) ?? [];
    expect(res.text.match(/<script\b/gi) ?? []).toHaveLength(scripts.length);
    expect(new Set(scripts)).toEqual(
      new Set([
        ...(res.text.includes('data-date=') ? ['<script src="/admin/assets/dates.js" defer></script>'] : []),
        ...(res.text.includes('data-lookup=') ? ['<script src="/admin/assets/lookup.js" defer></script>'] : []),
        ...(res.text.includes('data-searchable') ? ['<script src="/admin/assets/pick.js" defer></script>'] : []),
      ]),
    );
    expect(res.text).not.toMatch(/\son[a-z]+\s*=/i);
    expect(res.text).not.toMatch(/\sstyle\s*=/i);
    expect(res.text).not.toMatch(/https?:\/\/(?!img\.test\/)/); // nothing from other hosts but the data's own image links
  });
});
