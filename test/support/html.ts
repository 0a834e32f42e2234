// Reading the server-rendered pages in tests, with a real HTML parser (node-html-parser) instead of
// regular expressions copied between files. Entities are decoded; text is what a reader sees.
import { HTMLElement, parse, TextNode, type Node } from 'node-html-parser';

export type Page = HTMLElement;

/** The parsed page (or fragment). */
export const parseHtml = (html: string): Page => parse(html);

const page = (html: string | Page): Page => (typeof html === 'string' ? parse(html) : html);

/** Tags that sit inside a line of text; every other element separates its text from its neighbours'. */
const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'code', 'em', 'i', 'mark', 'small', 'span', 'strong', 'time']);

function collect(node: Node, out: string[]): void {
  if (node instanceof TextNode) {
    out.push(node.text);
    return;
  }
  if (!(node instanceof HTMLElement)) return;
  const block = !INLINE.has(node.rawTagName?.toLowerCase() ?? '');
  if (block) out.push(' ');
  for (const child of node.childNodes) collect(child, out);
  if (block) out.push(' ');
}

/** An element's text as read: inline tags joined, blocks (cells, paragraphs, breaks) apart, spaces collapsed. */
export function textOf(node: Node | string): string {
  const out: string[] = [];
  collect(typeof node === 'string' ? parse(node) : node, out);
  return out.join('').replace(/\s+/g, ' ').trim();
}

/** The element `selector` finds, or a failure that names it. */
export function one(html: string | Page, selector: string): HTMLElement {
  const found = page(html).querySelector(selector);
  if (!found) throw new Error(`nothing matches ${selector}`);
  return found;
}

/** The cells' text of a table body, row by row: the first `tbody` inside `within` (the whole page by default). */
export function tableRows(html: string | Page, within?: string): string[][] {
  const scope = within ? one(html, within) : page(html);
  const body = scope.querySelector('tbody');
  if (!body) return [];
  return body.querySelectorAll('tr').map((tr) => tr.querySelectorAll('td').map((td) => textOf(td)));
}

/** The CSRF token a form carries. */
export const csrfToken = (html: string | Page): string => one(html, 'input[name="_csrf"]').getAttribute('value') ?? '';

/** A select's or datalist's options as [value, label]. */
export function optionsOf(html: string | Page, selector: string): Array<[string, string]> {
  return one(html, selector)
    .querySelectorAll('option')
    .map((option) => [option.getAttribute('value') ?? '', textOf(option)]);
}

/** The message shown beside a form field, if any. */
export const fieldError = (html: string | Page, name: string): string | undefined => {
  const found = page(html).querySelector(`#f-${name}-error`);
  return found ? textOf(found) : undefined;
};

/** The hidden fields of the first form `selector` finds, by name: what a browser would send along. */
export const hiddenFields = (html: string | Page, selector = 'form'): Record<string, string> =>
  Object.fromEntries(
    one(html, selector)
      .querySelectorAll('input[type=hidden]')
      .map((input) => [input.getAttribute('name')!, input.getAttribute('value') ?? '']),
  );
