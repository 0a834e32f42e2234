import pg, { type PoolClient } from 'pg';
import request from 'supertest';
import { useFixtureAndDemo } from './support/app';
import { applied, rolledBack } from './support/rolled-back';
import { databaseUrl, testDatabases } from './support/databases';

// patrol_check_questioners keeps each check's Questioner array, written by triggers (migration 004)
// from the view patrol_check_questioner_docs, which is the array's one definition.
// A copy of the fixture of its own: its rolled-back inserts apply the kept data (kept_apply_all, which
// takes the applier's lock) while holding their rows, so a file that writes the same ids on the shared
// fixture and holds that lock would deadlock with it.
const apps = useFixtureAndDemo('questioners');

/** Checks whose stored array is missing, extra or differs from the view's. */
const drift = `SELECT count(*)::int AS n
  FROM patrol_check_questioners s
  FULL JOIN patrol_check_questioner_docs d ON d.check_id = s.check_id
 WHERE s.doc::text IS DISTINCT FROM d.doc::text`;

const inTransaction = (work: (client: PoolClient) => Promise<void>) => rolledBack(apps.fixture.owner, work);

const stored = async (client: PoolClient, checkId: number) =>
  (await applied(client), await client.query('SELECT doc FROM patrol_check_questioners WHERE check_id = $1', [checkId])).rows[0]?.doc;

describe('stored Questioner arrays', () => {
  it('match their definition in the fixture (loaded row by row) and in the generated demo (rebuilt in bulk)', async () => {
    expect((await apps.fixture.pool.query(drift)).rows[0].n).toBe(0);
    expect((await apps.demo.pool.query(drift)).rows[0].n).toBe(0);
    const { rows } = await apps.demo.pool.query(
      'SELECT (SELECT count(DISTINCT check_id) FROM patrol_check_answers)::int AS answered, (SELECT count(*) FROM patrol_check_questioners)::int AS stored',
    );
    expect(rows[0].answered).toBeGreaterThan(100);
    expect(rows[0].stored).toBe(rows[0].answered);
  });

  it('are what the API sends as Questioner', async () => {
    const res = await request(apps.fixture.app).get('/v2/patrollerchecks?rider_id=101').expect(200);
    const check = res.body.find((c: { ID: number }) => c.ID === 9001);
    expect(check.Questioner).toEqual([
      { question: 'Is the helmet worn?', answer: 'Yes', imageUrl: null, score: '2', category: 'Equipment' },
      { question: 'Which items are damaged?', answer: ['Helmet', 'Bag'], imageUrl: null, score: '-2', category: 'Equipment' },
      { question: 'Photo of the bike', answer: null, imageUrl: 'https://img.test/c9001-bike.jpg', score: null, category: 'Vehicle' },
    ]);
  });

  it('follow inserted, changed and deleted answers, in order of position', async () => {
    await inTransaction(async (client) => {
      await client.query(`INSERT INTO patrol_check_answers (check_id, position, question_id, answer, image_url, score)
                          VALUES (9001, 0, 304, '"Clean"', NULL, 1)`);
      const afterInsert = await stored(client, 9001);
      expect(afterInsert).toHaveLength(4);
      expect(afterInsert[0]).toEqual({
        question: 'Is the uniform clean?',
        answer: 'Clean',
        imageUrl: null,
        score: '1',
        category: 'Appearance',
      });

      await client.query(`UPDATE patrol_check_answers SET answer = '"No"', score = -1 WHERE check_id = 9001 AND position = 1`);
      expect((await stored(client, 9001))[1]).toEqual({
        question: 'Is the helmet worn?',
        answer: 'No',
        imageUrl: null,
        score: '-1',
        category: 'Equipment',
      });

      // An answer moved to another check changes both arrays.
      await client.query('UPDATE patrol_check_answers SET check_id = 9003, position = 99 WHERE check_id = 9001 AND position = 3');
      expect((await stored(client, 9001)).map((a: { question: string }) => a.question)).not.toContain('Photo of the bike');
      expect((await stored(client, 9003)).at(-1).question).toBe('Photo of the bike');

      await client.query('DELETE FROM patrol_check_answers WHERE check_id = 9001');
      expect(await stored(client, 9001)).toBeUndefined();
      expect((await client.query(drift)).rows[0].n).toBe(0);
    });
  });

  it('follow a question whose text or category changes, and only then', async () => {
    await inTransaction(async (client) => {
      const before = await stored(client, 9001);
      await client.query(`UPDATE questions SET question_type = question_type WHERE id = 301`);
      expect(await stored(client, 9001)).toEqual(before);
      await client.query(`UPDATE questions SET text = 'Is a helmet worn?', category = 'Safety' WHERE id = 301`);
      expect((await stored(client, 9001))[0]).toMatchObject({ question: 'Is a helmet worn?', category: 'Safety' });
      expect((await client.query(drift)).rows[0].n).toBe(0);
    });
  });

  it('are dropped with the last answer of their check, and emptied by a TRUNCATE of the answers', async () => {
    await inTransaction(async (client) => {
      await client.query('DELETE FROM patrol_check_answers WHERE check_id = 9002');
      expect(await stored(client, 9002)).toBeUndefined();
      await client.query('TRUNCATE patrol_check_answers');
      await applied(client);
      expect((await client.query('SELECT count(*)::int AS n FROM patrol_check_questioners')).rows[0].n).toBe(0);
    });
  });

  it('are kept right for a role that may write answers but only read the stored arrays', async () => {
    const role = `rider_equipment_writer_${process.env.TEST_RUN_ID}`;
    await apps.fixture.owner.query(`DROP ROLE IF EXISTS ${role}`);
    await apps.fixture.owner.query(`CREATE ROLE ${role} LOGIN PASSWORD 'writer-secret'`);
    await apps.fixture.owner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON patrol_check_answers TO ${role}; GRANT SELECT ON questions, patrol_check_questioners TO ${role}`,
    );
    const url = new URL(databaseUrl(process.env.TEST_ADMIN_URL!, testDatabases().questioners));
    url.username = role;
    url.password = 'writer-secret';
    const writer = new pg.Client(url.toString());
    await writer.connect();
    try {
      await expect(writer.query('DELETE FROM patrol_check_questioners')).rejects.toThrow(/permission denied/);
      await writer.query('BEGIN');
      await writer.query(`UPDATE patrol_check_answers SET answer = '"Maybe"' WHERE check_id = 9001 AND position = 1`);
      await applied(writer);
      const { rows } = await writer.query("SELECT doc->0->>'answer' AS answer FROM patrol_check_questioners WHERE check_id = 9001");
      expect(rows).toEqual([{ answer: 'Maybe' }]);
      await writer.query('ROLLBACK');
    } finally {
      await writer.end();
      await apps.fixture.owner.query(`DROP OWNED BY ${role}`);
      await apps.fixture.owner.query(`DROP ROLE ${role}`);
    }
  });
});
