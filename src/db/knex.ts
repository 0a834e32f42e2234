import knex, { Knex } from 'knex';

/** A knex instance without a connection: it only builds SQL, which the pg pool then runs. */
export const sql: Knex = knex({ client: 'pg' });

/** A connected knex, for migrations and seeding. */
export function connectKnex(url: string): Knex {
  return knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
}

export interface NativeQuery {
  text: string;
  values: unknown[];
}

export function toNative(builder: Knex.QueryBuilder | Knex.Raw): NativeQuery {
  const { sql: text, bindings } = builder.toSQL().toNative();
  return { text, values: bindings as unknown[] };
}
