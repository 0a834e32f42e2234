import type { Knex } from 'knex';

/**
 * The one 3PL company a caller is limited to (a token's or a supervisor's), set by the access layer
 * after validation and never read from the request. Every resource that holds riders applies it.
 */
export interface Scope {
  company_id?: string | null;
}

export function applyScope(builder: Knex.QueryBuilder, scope: Scope, column = 'r.company_id'): Knex.QueryBuilder {
  if (scope.company_id) builder.where(column, scope.company_id);
  return builder;
}
