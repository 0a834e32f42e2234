import fs from 'node:fs';
import path from 'node:path';

// The guides name files; a rename that forgets them leaves a newcomer lost. Every file or folder
// docs/ARCHITECTURE.md names exists, and every relative link of the README and docs/ leads somewhere.

const root = path.join(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
/** The docs' Markdown files, the recorded runs of docs/runs/ included, relative to docs/. */
const docFiles = () =>
  fs
    .readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .sort();

/** Paths named in `code` spans that start at one of the project's folders or are top-level files. */
function namedPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  const paths = spans.filter(
    (span) => /^(src|test|db|views|public|bench|docs|scripts|\.ci)\/[\w./*-]*$/.test(span) || /^[\w.-]+\.(json|js|mjs|md)$/.test(span),
  );
  return [...new Set(paths)];
}

function exists(relative: string): boolean {
  // `src/queries/*.ts` names a set: at least one file must match.
  if (relative.includes('*')) {
    const dir = path.join(root, path.dirname(relative));
    const pattern = new RegExp(`^${path.basename(relative).replace(/\./g, '\\.').replace(/\*/g, '.*')}$`);
    return fs.existsSync(dir) && fs.readdirSync(dir).some((name) => pattern.test(name));
  }
  return fs.existsSync(path.join(root, relative));
}

describe('docs/ARCHITECTURE.md', () => {
  const text = read('docs/ARCHITECTURE.md');
  const named = namedPaths(text);

  it('names the files of every layer', () => {
    expect(named.length).toBeGreaterThan(30);
    for (const layer of [
      'src/api/v2/operations.ts',
      'src/wire/shapes.ts',
      'src/filters/define.ts',
      'src/queries/',
      'src/html/',
      'src/db/',
    ]) {
      expect(named.some((p) => p.startsWith(layer))).toBe(true);
    }
  });

  it('names only files and folders that exist', () => {
    expect(named.filter((p) => !exists(p))).toEqual([]);
  });

  it('would notice a name that does not exist', () => {
    expect(exists('src/api/v2/no-such-file.ts')).toBe(false);
    expect(exists('src/queries/*.ts')).toBe(true);
    expect(exists('src/queries/*.nothing')).toBe(false);
  });
});

describe('relative links in the README and docs/', () => {
  const files = ['README.md', ...docFiles().map((f) => `docs/${f}`)];

  it('include the recorded runs in docs/runs/', () => {
    expect(files).toEqual(expect.arrayContaining(['docs/runs/BENCHMARKS.md', 'docs/OPERATIONS.md']));
  });

  it.each(files)('%s', (file) => {
    // Code (fenced blocks and inline spans) holds no links: `rules[rule](q)` is a call, not a link to q.
    const prose = read(file)
      .replace(/```[\s\S]*?```/g, '')
      .replace(/`[^`\n]*`/g, '');
    const links = [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((href) => !/^(https?:|mailto:|#)/.test(href));
    const broken = links.filter((href) => !fs.existsSync(path.join(root, path.dirname(file), decodeURI(href.split('#')[0]))));
    expect(broken).toEqual([]);
    // A link whose text names a page leads to that page ("[OPERATIONS.md](REPLICAS.md)" misleads).
    const misnamed = [...prose.matchAll(/\[(?:docs\/)?([\w-]+\.md)\]\(([^)\s#]+)/g)].filter(
      ([, text, href]) => path.basename(href) !== text,
    );
    expect(misnamed.map(([link]) => link)).toEqual([]);
    // A link to a heading (`#…`, on this page or another) leads to a heading that is there.
    const lost = [...prose.matchAll(/\]\(([^)\s]*#[^)\s]+)\)/g)]
      .map((m) => m[1])
      .filter((href) => !/^(https?:|mailto:)/.test(href))
      .filter((href) => {
        const [target, anchor] = href.split('#');
        const page = target ? path.join(path.dirname(file), decodeURI(target)) : file;
        return page.endsWith('.md') && !anchors(page).has(decodeURIComponent(anchor));
      });
    expect(lost).toEqual([]);
  });

  it('would notice a link to a heading that is not there', () => {
    expect(anchors('docs/KEPT-DATA.md').has('kept-list-data-and-the-time-zone')).toBe(true);
    expect(anchors('docs/OPERATIONS.md').has('kept-list-data-and-the-time-zone')).toBe(false);
    expect(slug('What a writer pays: the "Needs attention" rules (v2)')).toBe('what-a-writer-pays-the-needs-attention-rules-v2');
  });
});

/** A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page (relative to the root): its headings' (the second of a name gets -1), and its ids. */
function anchors(file: string): Set<string> {
  const text = read(file).replace(/```[\s\S]*?```/g, '');
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const [, id] of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) found.add(id);
  return found;
}

describe('docs/ stays readable', () => {
  const docs = docFiles();
  // A doc past 60 KB is split by task (docs/REPLICAS.md came out of docs/OPERATIONS.md so).
  it.each(docs)('docs/%s is at most 60 KB', (file) => {
    expect(fs.statSync(path.join(root, 'docs', file)).size).toBeLessThanOrEqual(60 * 1024);
  });
});
