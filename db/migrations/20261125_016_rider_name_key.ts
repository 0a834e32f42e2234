import type { Knex } from 'knex';

// The rider search (src/queries/rider-equipment.ts) matches a name ignoring letter case, runs of
// spaces and accents ("jose  alvarez" finds "José Álvarez"). One function says how a name is read,
// rider_name_key(); each rider keeps its name read so (riders.name_key, a stored generated column that
// PostgreSQL itself keeps: no trigger, nothing for a writer to do), and a trigram index over that column
// answers the search as migration 012's did over the bare name. Stored, the key is not computed again
// for each candidate row the index returns (that cost 10 ms for a common surname at 100,000 riders). unaccent is a contrib extension, trusted, shipped with PostgreSQL and the embedded one;
// where it is missing the key ignores case and spaces only, and the search works the same otherwise.
// The function is IMMUTABLE so that it can be indexed: unaccent reads its rules file, which changes
// only with an upgrade (then REINDEX riders_name_key_trgm_idx).
export async function up(knex: Knex): Promise<void> {
  const { rows } = await knex.raw(`SELECT 1 FROM pg_available_extensions WHERE name = 'unaccent'`);
  const unaccent = rows.length > 0;
  if (unaccent) await knex.raw('CREATE EXTENSION IF NOT EXISTS unaccent');
  const schema = unaccent
    ? (
        await knex.raw(
          `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'`,
        )
      ).rows[0].schema
    : undefined;
  const accentless = schema ? `${schema}.unaccent('${schema}.unaccent'::regdictionary, $1)` : '$1';
  await knex.raw(`
    CREATE FUNCTION rider_name_key(text) RETURNS text
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN lower(regexp_replace(${accentless}, '\\s+', ' ', 'g'));
    ALTER TABLE riders ADD COLUMN name_key text GENERATED ALWAYS AS (rider_name_key(name)) STORED;
    COMMENT ON COLUMN riders.name_key IS 'The name as the admin search reads it (rider_name_key); kept by PostgreSQL.';
    CREATE INDEX riders_name_key_trgm_idx ON riders USING gin (name_key gin_trgm_ops);
    DROP INDEX riders_name_trgm_idx;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX riders_name_trgm_idx ON riders USING gin (name gin_trgm_ops);
    DROP INDEX riders_name_key_trgm_idx;
    ALTER TABLE riders DROP COLUMN name_key;
    DROP FUNCTION rider_name_key(text);
  `);
}
