import type { Knex } from 'knex';

// Who may read the data: API tokens (stored as SHA-256 of the token, never the token), supervisors
// (Argon2id password hashes) and their sessions. They live in a schema of their own, so the role the
// queries use can be granted SELECT on the data alone (see README, "Database roles").
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE SCHEMA access;

    CREATE TABLE access.api_tokens (
      id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      name         text        NOT NULL CHECK (name <> ''),
      token_sha256 bytea       NOT NULL UNIQUE CHECK (length(token_sha256) = 32),
      company_id   bigint      REFERENCES public.companies,
      created_at   timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      expires_at   timestamptz,
      revoked_at   timestamptz
    );
    CREATE UNIQUE INDEX api_tokens_live_name_idx ON access.api_tokens (name) WHERE revoked_at IS NULL;

    CREATE TABLE access.supervisors (
      id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      username      text        NOT NULL UNIQUE CHECK (username ~ '^[A-Za-z0-9._@-]{1,64}$'),
      password_hash text        NOT NULL,
      company_id    bigint      REFERENCES public.companies,
      created_at    timestamptz NOT NULL DEFAULT now(),
      disabled_at   timestamptz
    );

    -- The table connect-pg-simple expects.
    CREATE TABLE access.sessions (
      sid    varchar      NOT NULL PRIMARY KEY,
      sess   json         NOT NULL,
      expire timestamp(6) NOT NULL
    );
    CREATE INDEX sessions_expire_idx ON access.sessions (expire);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP SCHEMA access CASCADE');
}
