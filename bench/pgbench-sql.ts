// Turns the service's SQL (knex's native form, with $1..$n parameters) into a pgbench script
// statement that PostgreSQL parses into exactly the same query.
//
// pgbench replaces every `:name` in a statement with a variable, including inside string literals,
// so `to_char(x, 'YYYY-MM-DD HH24:MI:SS')` would break. Such literals are rewritten as E'' strings
// with the colon as \x3a: the server reads the very same constant. `$n` becomes `:pn` (a fixed value,
// given with -D) or the name of a random variable; with -M prepared pgbench sends them as untyped
// parameters of a prepared statement, as node-postgres sends the service's.

export interface PgbenchStatement {
  sql: string;
  /** Fixed parameter values, for `-D name=value`. */
  defines: Record<string, string>;
}

const isIdentChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_\u0080-\uffff]/.test(c);

function valueText(value: unknown): string {
  if (value === null || value === undefined) throw new Error('pgbench-sql: NULL parameters cannot be passed with -D');
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/**
 * @param variables `$n` (1-based) → the pgbench variable that replaces it (e.g. the random rider);
 *                  other parameters become fixed `-D pn=value`.
 */
export function toPgbenchStatement(
  text: string,
  values: readonly unknown[],
  variables: ReadonlyMap<number, string> = new Map(),
): PgbenchStatement {
  const defines: Record<string, string> = {};
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "'") {
      const escapeString = (text[i - 1] === 'E' || text[i - 1] === 'e') && !isIdentChar(text[i - 2]);
      let j = i + 1;
      let body = '';
      for (;;) {
        if (j >= text.length) throw new Error('pgbench-sql: unterminated string literal');
        if (text[j] === "'" && text[j + 1] === "'") {
          body += "''";
          j += 2;
          continue;
        }
        if (escapeString && text[j] === '\\') {
          body += text.slice(j, j + 2);
          j += 2;
          continue;
        }
        if (text[j] === "'") break;
        body += text[j++];
      }
      if (!body.includes(':')) out += `'${body}'`;
      else if (escapeString) out += `'${body.replace(/:/g, '\\x3a')}'`;
      else out += `E'${body.replace(/\\/g, '\\\\').replace(/:/g, '\\x3a')}'`;
      i = j + 1;
    } else if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) throw new Error('pgbench-sql: unterminated quoted identifier');
      const ident = text.slice(i, end + 1);
      if (ident.includes(':')) throw new Error(`pgbench-sql: a colon in identifier ${ident} cannot be passed through pgbench`);
      out += ident;
      i = end + 1;
    } else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end; // comments dropped: pgbench would substitute inside them too
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new Error('pgbench-sql: unterminated comment');
      out += ' ';
      i = end + 2;
    } else if (c === '$' && /\d/.test(text[i + 1] ?? '') && !isIdentChar(text[i - 1])) {
      let j = i + 1;
      while (/\d/.test(text[j] ?? '')) j++;
      const n = Number(text.slice(i + 1, j));
      if (n < 1 || n > values.length) throw new Error(`pgbench-sql: $${n} has no value`);
      const variable = variables.get(n);
      if (variable) out += `:${variable}`;
      else {
        defines[`p${n}`] = valueText(values[n - 1]);
        out += `:p${n}`;
      }
      i = j;
    } else if (c === '$' && !isIdentChar(text[i - 1])) {
      throw new Error('pgbench-sql: dollar-quoted strings are not supported');
    } else if (c === ':' && text[i + 1] !== ':' && text[i - 1] !== ':' && isIdentChar(text[i + 1])) {
      throw new Error(`pgbench-sql: a bare colon at "${text.slice(i - 10, i + 10)}" would be read as a pgbench variable`);
    } else if (c === ';') {
      throw new Error('pgbench-sql: the statement must not contain a semicolon outside literals');
    } else {
      out += c;
      i++;
    }
  }
  return { sql: out.trim(), defines };
}

/** The SQL with its parameters written as literals, for COPY (which takes no parameters). */
export function inlineParameters(text: string, values: readonly unknown[]): string {
  if (values.length === 0) return text;
  const literal = (v: unknown) => `'${valueText(v).replace(/'/g, "''")}'`;
  const { sql } = toPgbenchStatement(text, values);
  // Re-expand the :pn references toPgbenchStatement produced; the colon escapes it added are harmless.
  return sql.replace(/(?<![:\w]):p(\d+)\b/g, (_m, n: string) => literal(values[Number(n) - 1]));
}
