// Links that carry the current filters: pagination, sorting, page size and CSV all keep them.

export type Query = Record<string, string>;

/** `path?query`, leaving out empty values, so links stay as short as the form's own submissions. */
export function href(path: string, query: Query = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== '') search.append(name, value);
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

/** The single string values of a raw query; repeated names (arrays) are left to the validator to reject. */
export function stringQuery(raw: Record<string, unknown>, names?: readonly string[]): Query {
  const out: Query = Object.create(null); // names from the request: `__proto__` is one like any other
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'string' && (!names || names.includes(name))) out[name] = value;
  }
  return out;
}

/** A copy of `query` without `names`. */
export function without(query: Query, ...names: string[]): Query {
  const out = { ...query };
  for (const name of names) delete out[name];
  return out;
}

/**
 * `value` when it is a path of the admin pages (`/admin`, `/admin/…`, `/admin?…`), so that a crafted
 * form or link cannot send a supervisor to another site after signing in or saving; otherwise undefined.
 */
export function adminPathOrNone(value: unknown): string | undefined {
  return typeof value === 'string' && /^\/admin(\/[^\\]*|\?[^\\]*)?$/.test(value) && !value.startsWith('//') ? value : undefined;
}
