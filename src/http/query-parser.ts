import querystring from 'node:querystring';
import { fieldErrors, invalidQuery } from './errors';

/** A `%` not followed by two hex digits, or bytes that are not UTF-8 once decoded. */
function malformed(part: string): boolean {
  try {
    decodeURIComponent(part.replace(/\+/g, ' '));
    return false;
  } catch {
    return true;
  }
}

/**
 * Express's 'simple' query parser (node:querystring: flat string values), except that a value or name
 * whose percent-encoding is broken is refused with 400 rather than searched for as mangled text
 * (querystring keeps `%ZZ` as it is and turns bad UTF-8 into U+FFFD, so `name=%C3` matched nothing
 * and answered 200 []). Thrown where req.query is first read, so every surface answers it its way.
 */
export function parseQuery(query: string | null | undefined): Record<string, string | string[]> {
  // No query at all (Express passes null), or the common case, checked at once: nothing encoded, or all of it well.
  if (!query) return {};
  if (query.includes('%') && malformed(query)) {
    const errors = fieldErrors();
    for (const pair of query.split('&')) {
      const equals = pair.indexOf('=');
      const [name, value] = equals === -1 ? [pair, ''] : [pair.slice(0, equals), pair.slice(equals + 1)];
      const badName = malformed(name);
      if (badName || malformed(value)) {
        errors[badName ? name : querystring.unescape(name)] = [
          'is not valid URL encoding: % must start a %XX pair, and the bytes must be UTF-8 text',
        ];
      }
    }
    throw invalidQuery(errors);
  }
  return querystring.parse(query) as Record<string, string | string[]>;
}
