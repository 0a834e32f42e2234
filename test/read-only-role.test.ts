import pg from 'pg';
import request from 'supertest';
import { allOperations } from '../src/api/v2/operations';
import { createApp } from '../src/app';
import { TokenCache, createToken } from '../src/auth/tokens';
import { loadConfig } from '../src/config';
import { createPool } from '../src/db/pool';
import { grantsFor } from '../src/db/migrate';
import { databaseUrl, testDatabases, useDatabase } from './support/databases';

// The roles of docs/OPERATIONS.md: the service connects as a role that may only read the data.
const role = `rider_equipment_app_${process.env.TEST_RUN_ID}`;
const fixtureUrl = () => databaseUrl(process.env.TEST_ADMIN_URL!, testDatabases().fixture);
let owner: pg.Client;

beforeAll(async () => {
  await useDatabase('fixture');
  owner = new pg.Client(fixtureUrl());
  await owner.connect();
  await owner.query(`DROP ROLE IF EXISTS ${role}`);
  await owner.query(`CREATE ROLE ${role} LOGIN PASSWORD 'app-secret'`);
  await owner.query(grantsFor(role));
});

afterAll(async () => {
  await owner.query(`DROP OWNED BY ${role}`);
  await owner.query(`DROP ROLE ${role}`);
  await owner.end();
});

describe('the service as a read-only database role', () => {
  it('answers every operation, checks tokens and records their use, and cannot change the data', async () => {
    const url = new URL(fixtureUrl());
    url.username = role;
    url.password = 'app-secret';
    const config = loadConfig({ NODE_ENV: 'test', AUTH: 'on' });
    const logs: string[] = [];
    const pool = createPool(url.toString(), config, (m) => logs.push(m));
    const streamPool = createPool(url.toString(), config, (m) => logs.push(m), 'streams');
    const tokens = new TokenCache(pool, 60000, (m) => logs.push(m));
    try {
      const { token } = await createToken(owner, { name: `read-only-role-${process.env.TEST_RUN_ID}` });
      await tokens.start();
      const app = createApp({ pool, streamPool, config, tokens, log: (m) => logs.push(m) });
      // Every operation of the registry: a new one is checked here without a word.
      for (const { path } of allOperations) {
        const res = await request(app).get(`/v2${path}`).set('Authorization', `Bearer ${token}`);
        expect([path, res.status]).toEqual([path, 200]);
      }
      await tokens.refresh(); // writes last_used_at: allowed
      expect(logs).toEqual([]);
      await expect(pool.query("UPDATE riders SET name = 'x' WHERE id = 101")).rejects.toThrow(/permission denied/);
      await expect(pool.query('DELETE FROM patrol_checks')).rejects.toThrow(/permission denied/);
      await expect(pool.query('UPDATE access.api_tokens SET revoked_at = NULL')).rejects.toThrow(/permission denied/);
      // The kept data: written only through kept_apply(), which runs as the tables' owner; never by hand.
      expect((await pool.query('SELECT kept_apply(10) AS taken')).rows[0].taken).toBeGreaterThanOrEqual(0);
      await expect(pool.query('DELETE FROM kept_changes')).rejects.toThrow(/permission denied/);
      await expect(pool.query('UPDATE kept_held_items SET items = 0')).rejects.toThrow(/permission denied/);
      // Its own data: supervisors' notes on "Needs attention" are recorded and undone, never deleted or rewritten.
      const { rows } = await owner.query(
        `INSERT INTO access.supervisors (username, password_hash) VALUES ('role-test-${process.env.TEST_RUN_ID}', 'x') RETURNING id`,
      );
      const [{ id }] = (
        await pool.query(
          `INSERT INTO access.attention_handled (rule, subject_id, evidence_at, note, handled_by) VALUES ('unchecked', 0, now(), 'n', $1) RETURNING id`,
          [rows[0].id],
        )
      ).rows;
      await pool.query('UPDATE access.attention_handled SET undone_at = now(), undone_by = $1 WHERE id = $2', [rows[0].id, id]);
      await expect(pool.query("UPDATE access.attention_handled SET note = 'changed'")).rejects.toThrow(/permission denied/);
      await expect(pool.query('DELETE FROM access.attention_handled')).rejects.toThrow(/permission denied/);
      await owner.query('DELETE FROM access.attention_handled WHERE id = $1', [id]);
      await owner.query('DELETE FROM access.supervisors WHERE id = $1', [rows[0].id]);
    } finally {
      tokens.stop();
      await Promise.all([pool.end(), streamPool.end()]);
    }
  });
});
