import { escapeLiteral } from 'pg';
import type { NativeQuery } from './knex';

// COPY takes no bind parameters: the statements the API's streams and the admin CSVs run as COPY
// carry their validated values as quoted literals.

function literal(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return escapeLiteral(value);
  throw new TypeError(`cannot inline a parameter of type ${typeof value}`);
}

/** The query's text with its values written in as quoted literals. */
export function inlineParameters(query: NativeQuery): string {
  return query.text.replace(/\$(\d+)/g, (_match, n: string) => literal(query.values[Number(n) - 1]));
}
