import { hash, verify } from '@node-rs/argon2';
import type pg from 'pg';

// Supervisors sign in to /admin. Passwords are kept as Argon2id hashes (the library's defaults:
// 19 MiB, 2 passes, as OWASP recommends).

export interface Supervisor {
  id: string;
  username: string;
  /** The one 3PL company the supervisor may see, or null for all. */
  companyId: string | null;
  /** How the pages look for them: the system's light or dark, or always one (access.supervisor_preferences). */
  theme?: Theme;
}

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

type Queryable = Pick<pg.ClientBase, 'query'>;

export const MIN_PASSWORD_LENGTH = 12;

export async function createSupervisor(
  db: Queryable,
  { username, password, company }: { username: string; password: string; company?: string },
): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`A password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  let companyId: string | null = null;
  if (company !== undefined) {
    const { rows } = await db.query('SELECT id FROM companies WHERE name = $1', [company]);
    if (!rows.length) throw new Error(`There is no 3PL company named "${company}"`);
    companyId = rows[0].id;
  }
  const { rows } = await db.query(
    `INSERT INTO access.supervisors (username, password_hash, company_id) VALUES ($1, $2, $3)
     ON CONFLICT (username) DO UPDATE SET password_hash = EXCLUDED.password_hash, company_id = EXCLUDED.company_id, disabled_at = NULL
     RETURNING id`,
    [username, await hash(password), companyId],
  );
  return rows[0].id;
}

export async function disableSupervisor(db: Queryable, username: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE access.supervisors SET disabled_at = now() WHERE username = $1 AND disabled_at IS NULL', [
    username,
  ]);
  return (rowCount ?? 0) > 0;
}

// Verifying against a fixed hash when the user is unknown keeps both answers equally slow.
let decoy: Promise<string> | undefined;

/** The supervisor, when the username is live and the password matches. */
export async function authenticate(db: Queryable, username: string, password: string): Promise<Supervisor | undefined> {
  const { rows } = await db.query(
    `SELECT s.id, s.username, s.company_id, s.password_hash, coalesce(p.theme, 'system') AS theme
       FROM access.supervisors s LEFT JOIN access.supervisor_preferences p ON p.supervisor_id = s.id
      WHERE s.username = $1 AND s.disabled_at IS NULL`,
    [username],
  );
  if (!rows.length) {
    decoy ??= hash('not a password of anyone');
    await verify(await decoy, password);
    return undefined;
  }
  if (!(await verify(rows[0].password_hash, password))) return undefined;
  return { id: rows[0].id, username: rows[0].username, companyId: rows[0].company_id, theme: rows[0].theme };
}

/** Still allowed in? (A disabled supervisor's session ends at its next request.) */
export async function stillActive(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM access.supervisors WHERE id = $1 AND disabled_at IS NULL', [id]);
  return (rowCount ?? 0) > 0;
}

/** A supervisor as `npm run supervisor -- list` shows them. */
export interface SupervisorListed {
  username: string;
  /** The one 3PL they see, or null for all. */
  company: string | null;
  created: string;
  /** When they were disabled, or null while they may sign in. */
  disabled: string | null;
  /** Rows of "Needs attention" given to them now, and notes they wrote (handlings and other notes). */
  given: number;
  notes: number;
}

/** Every supervisor, active ones first, by name; dates as YYYY-MM-DD HH:MI in UTC. */
export async function listSupervisors(db: Queryable): Promise<SupervisorListed[]> {
  const { rows } = await db.query<SupervisorListed>(
    `SELECT s.username, c.name AS company,
            to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS created,
            to_char(s.disabled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS disabled,
            (SELECT count(*) FROM access.attention_owners o WHERE o.assigned_to = s.id)::int AS given,
            ((SELECT count(*) FROM access.attention_handled h WHERE h.handled_by = s.id)
             + (SELECT count(*) FROM access.supervisor_notes n WHERE n.written_by = s.id))::int AS notes
       FROM access.supervisors s LEFT JOIN companies c ON c.id = s.company_id
      ORDER BY s.disabled_at IS NOT NULL, s.username`,
  );
  return rows;
}
