import request from 'supertest';
import { testDatabases } from './support/databases';
import { useOwnDatabase } from './support/own-database';

// Everything from the database reaches the page as text. This suite has a database of its own,
// so the shared fixture keeps its exact contents: a rider, a 3PL, a patroller, an item, a note and
// a questionnaire, each holding markup.
const NAME = `${testDatabases().fixture}_escaping`;
const HOSTILE = `
  INSERT INTO countries (id, code, name) VALUES (1, 'AE', '<b>Emirates</b>');
  INSERT INTO companies (id, name) VALUES (1, '<b>Evil & Co</b>');
  INSERT INTO riders (id, name, company_id, country_id) VALUES (1, '<script>alert(1)</script>', 1, 1),
    (2, '<script>alert(5)</script> Two', 1, 1); -- two, so that a search lists them rather than opening one
  INSERT INTO patrollers (id, name) VALUES (1, '<img src=x onerror=alert(2)>');
  INSERT INTO app_users (id, name) VALUES (1, '"><svg onload=alert(3)>');
  INSERT INTO product_categories (id, name) VALUES (1, '<u>Helmets</u>');
  INSERT INTO products (id, name, category_id, image_url, exchange_after_days) VALUES (1, '<i>Helmet</i>', 1, 'javascript:alert(4)', 30);
  INSERT INTO product_variations (id, product_id, name) VALUES (1, 1, '</td><td>M');
  INSERT INTO assignments (id, rider_id, product_id, variation_id, assigned_at, assigned_by, assign_method, assign_type, deleted_at)
    VALUES (1, 1, 1, 1, '2024-05-01 10:00:00+00', 1, 0, 'assign', NULL),
           (2, 1, 1, 1, '2024-04-01 10:00:00+00', 1, 1, 'assign', '2024-05-01 10:00:00+00'),
           (3, 1, 1, 1, '2024-04-02 10:00:00+00', 1, 1, 'assign', '2024-05-01 10:00:00+00');
  INSERT INTO product_returns (id, assignment_id, returned_at, returned_by, condition) VALUES (1, 2, '2024-05-01 10:00:00+00', 1, '<marquee>Bad</marquee>');
  INSERT INTO product_exchanges (id, old_assignment_id, new_assignment_id, exchanged_at, exchange_type, replacement_type, processed_by)
    VALUES (1, 3, 1, '2024-05-01 10:00:00+00', '<blink>Swap</blink>', 'Lost', 1);
  INSERT INTO questions (id, country_id, text, question_type, category) VALUES (1, 1, '<h1>Question</h1>', 'TEXT<br>', '<em>Cat</em>');
  INSERT INTO question_answers (question_id, position, name, name_ar, score, jump, skip) VALUES (1, 1, '<b>Yes</b>', '<b>نعم</b>', 1, '<a>', '{"<x>"}');
  INSERT INTO patrol_checks (id, rider_id, patroller_id, checked_at, id_valid, plate_valid, sticker_valid, fake_id_note, fake_id_images)
    VALUES (1, 1, 1, '2024-05-02 10:00:00+00', false, true, true, '"><script>alert(5)</script>', '{"javascript:alert(6)","https://img.test/a.jpg?x=<b>"}');
  INSERT INTO patrol_check_items (check_id, position, assignment_id, status, image_url) VALUES (1, 1, 1, '<b>Good</b>', 'javascript:alert(7)');
  INSERT INTO patrol_check_answers (check_id, position, question_id, answer, image_url, score) VALUES (1, 1, 1, '"<script>alert(8)</script>"', 'javascript:alert(9)', 1);
`;

const own = useOwnDatabase(NAME, [HOSTILE]);

// The data's markup, as it would appear if it reached the page unescaped.
const RAW_MARKUP = [
  '<script>alert',
  '<img src=x',
  '<svg onload',
  '<b>Emirates',
  '<b>Evil',
  '<i>Helmet',
  '<u>Helmets',
  '</td><td>M',
  '<marquee>',
  '<blink>',
  '<h1>Question</h1>',
  'TEXT<br>',
  '<em>Cat',
  '<b>Yes',
  '<b>نعم',
  '<a>',
  '<x>',
  '<b>Good',
  'href="javascript',
];

describe('data that holds markup', () => {
  it.each([
    '/admin?as_of=2024-05-02',
    '/admin/checks',
    '/admin/checks/1',
    '/admin/riders/1',
    '/admin/search?q=script',
    '/admin/equipment/assignments',
    '/admin/equipment/riders',
    '/admin/equipment/returns',
    '/admin/equipment/exchanges',
    '/admin/questionnaire?country_id=1',
    '/admin/questionnaire',
  ])('shows as text on %s', async (path) => {
    const res = await request(own.app).get(path).expect(200);
    // The page's own markup uses none of these tags, so any of them would have come from the data.
    for (const markup of RAW_MARKUP) expect(res.text).not.toContain(markup);
    expect(res.text).not.toMatch(/<[^>]*\son[a-z]+\s*=/i); // no event handler attribute inside any tag
  });

  it('writes the names escaped where they are shown', async () => {
    const rider = (await request(own.app).get('/admin/riders/1').expect(200)).text;
    expect(rider).toContain('<h1 dir="auto">&lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(rider).toContain('&lt;b&gt;Evil &amp; Co&lt;/b&gt;');
    const check = (await request(own.app).get('/admin/checks/1').expect(200)).text;
    expect(check).toContain('&#34;&gt;&lt;script&gt;alert(5)&lt;/script&gt;');
    expect(check).toContain('&lt;img src=x onerror=alert(2)&gt;');
  });

  it('links only http(s) image addresses; others stay inert text', async () => {
    const check = (await request(own.app).get('/admin/checks/1').expect(200)).text;
    expect(check).not.toMatch(/href="javascript/i);
    expect(check).toContain('<a href="https://img.test/a.jpg?x=&lt;b&gt;" rel="noopener noreferrer">Image 2</a>');
    expect(check).toContain('<span class="url">javascript:alert(6)</span> (not a web address)');
  });

  it('escapes what the visitor typed, in the search box, the results and the messages', async () => {
    const search = (await request(own.app).get('/admin/search?q=%3Cscript%3Ealert(10)%3C%2Fscript%3E').expect(200)).text;
    expect(search).not.toContain('<script>alert(10)');
    expect(search).toContain('value="&lt;script&gt;alert(10)&lt;/script&gt;"');
    const bad = (await request(own.app).get('/admin/checks?rider_id=%22%3E%3Cscript%3Ealert(11)%3C%2Fscript%3E').expect(400)).text;
    expect(bad).not.toContain('<script>alert(11)');
    expect(bad).toContain('value="&#34;&gt;&lt;script&gt;alert(11)&lt;/script&gt;"');
  });

  it('keeps the CSV as data: the name as written, quoted by the CSV rules only', async () => {
    const csv = (await request(own.app).get('/admin/checks.csv').expect(200)).text.split('\n');
    expect(csv[1]).toBe(
      '1,2024-05-02 10:00:00,1,<script>alert(1)</script>,<b>Evil & Co</b>,1,<img src=x onerror=alert(2)>,Failed: ID,Failed,Passed,Passed,1,1',
    );
  });
});
