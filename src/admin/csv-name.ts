import type { Params } from '../filters/define';

// A list's CSV is named by the list and the filters it was downloaded with, so that files saved side
// by side tell themselves apart: patrol-checks_3pl-BlueCamel_2026-10-01_2026-10-31.csv. Only letters,
// digits, '.', '-' and '_' (a header value and a file name on any system); a value of no such
// character (a name in Arabic) is named by its filter alone.

export const MAX_CSV_NAME = 150;

/** A value's safe characters: accents dropped, spaces and anything else outside A-Z a-z 0-9 . - removed. */
export const safePart = (text: string) => text.normalize('NFKD').replace(/[^A-Za-z0-9.-]+/g, '');

/**
 * `name` and the filters in `values`: the 3PL first, then the other filters in their order, the date
 * ranges last (`from_to`, or `from-…` / `to-…` for one bound). Without filters, `name-day`.
 */
export function csvFileName(
  name: string,
  params: Params,
  values: Record<string, unknown>,
  day: string,
  { companyFields = [], people = {} }: { companyFields?: readonly string[]; people?: Readonly<Record<string, string>> } = {},
): string {
  const given = (key: string) => values[key] !== undefined && values[key] !== '';
  const keyOf = (key: string) =>
    companyFields.includes(key) ? '3pl' : (people[key] ?? key.replace(/_id$/, '').replace(/_/g, '-').toLowerCase());
  const textOf = (key: string) => (typeof values[key] === 'boolean' ? (values[key] ? '1' : '0') : String(values[key]));
  const names = Object.keys(params).filter((key) => !params[key].aliasOf);
  const ranges = names.filter((key) => params[key].from);
  const bounds = new Set(ranges.flatMap((to) => [to, params[to].from!]));
  const plain = [...names.filter((key) => companyFields.includes(key)), ...names.filter((key) => !companyFields.includes(key))].filter(
    (key) => !bounds.has(key) && given(key),
  );
  const parts = plain.map((key) => [keyOf(key), safePart(textOf(key))].filter(Boolean).join('-'));
  for (const to of ranges) {
    const from = params[to].from!;
    if (given(from) && given(to)) parts.push(`${safePart(textOf(from))}_${safePart(textOf(to))}`);
    else if (given(from)) parts.push(`from-${safePart(textOf(from))}`);
    else if (given(to)) parts.push(`to-${safePart(textOf(to))}`);
  }
  const full = parts.length ? [safePart(name), ...parts].join('_') : `${safePart(name)}-${day}`;
  return full.slice(0, MAX_CSV_NAME);
}
