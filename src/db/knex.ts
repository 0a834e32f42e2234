import knex, { Knex } from 'knex';

/** A knex instance without a connection: it only builds SQL, which the pg pool then runs. */
export const sql: Knex = knex({ client: 'pg' });

/** A connected knex, for migrations and seeding; `log` takes the place of knex's own console lines. */
export function connectKnex(url: string, log?: Knex.Config['log']): Knex {
  return knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 }, ...(log ? { log } : {}) });
}

export interface NativeQuery {
  text: string;
  values: unknown[];
}

export function toNative(builder: Knex.QueryBuilder | Knex.Raw): NativeQuery {
  const { sql: text, bindings } = builder.toSQL().toNative();
  return { text, values: bindings as unknown[] };
}
