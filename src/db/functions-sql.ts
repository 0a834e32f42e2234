// db/functions/: every function of the service's schemas, one file each (db/functions/kept_apply.sql), and
// every trigger on the data's tables (db/functions/triggers.sql), as the migrations leave them now, where
// a reader can open them (the migrations are history: what kept_apply() does today is the last of
// several versions); db/functions/README.md lists the files. Written by `npm run -s db:functions`;
// test/functions-sql.test.ts fails when the folder and a freshly migrated database differ.
import type pg from 'pg';

export const FUNCTIONS_DIR = 'db/functions';
/** The triggers' file in FUNCTIONS_DIR. */
export const TRIGGERS_FILE = 'triggers.sql';
/** The folder's index, in FUNCTIONS_DIR. */
export const INDEX_FILE = 'README.md';

interface FunctionRow {
  schema: string;
  name: string;
  args: string;
  result: string;
  language: string;
  definer: boolean;
  config: string[] | null;
  body: string;
  /** A SQL-standard body (RETURN …, BEGIN ATOMIC …): only the server's deparsing of it exists. */
  standard: string | null;
  comment: string | null;
}

/** One function, as a statement that would create it. */
export function functionStatement(f: FunctionRow): string {
  const comment = f.comment ? `${f.comment.replace(/^/gm, '-- ')}\n` : '';
  if (f.standard !== null) return `${comment}${f.standard.trim()};`;
  const head = [
    `CREATE OR REPLACE FUNCTION ${f.schema}.${f.name}(${f.args}) RETURNS ${f.result} LANGUAGE ${f.language}`,
    ...(f.definer ? ['  SECURITY DEFINER'] : []),
    ...(f.config ?? []).map((c) => `  SET ${c.replace('=', ' = ')}`),
  ];
  return `${comment}${head.join('\n')}\nAS $$${f.body}$$;`;
}

/** Each function's block in its file begins with this line. */
const MARK = (key: string) => `-- ── ${key} ──`;

/** A function's block: its statement, or for a SQL-standard body (which each server version deparses its own way) its first line. */
export interface FunctionBlock {
  key: string;
  /** Its file in FUNCTIONS_DIR: its name (schema-qualified outside public); overloads share it. */
  file: string;
  statement: string;
  standard: boolean;
}

/** The functions' blocks of a file's text (or of several files' texts, joined), by key. */
export function fileBlocks(text: string): Map<string, string> {
  const parts = text.split(/^-- ── (.+) ──$/m);
  const blocks = new Map<string, string>();
  for (let i = 1; i < parts.length; i += 2) blocks.set(parts[i], parts[i + 1].trim());
  return blocks;
}

/**
 * The folder's files (name in FUNCTIONS_DIR → text), from the database `db` is connected to, and each
 * function's block.
 */
export async function functionsSql(db: Pick<pg.ClientBase, 'query'>): Promise<{ files: Map<string, string>; functions: FunctionBlock[] }> {
  const { rows } = await db.query<FunctionRow>(`
    SELECT n.nspname AS schema, p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args,
           pg_get_function_result(p.oid) AS result, l.lanname AS language, p.prosecdef AS definer,
           p.proconfig AS config, p.prosrc AS body,
           CASE WHEN p.prosqlbody IS NOT NULL THEN pg_get_functiondef(p.oid) END AS standard,
           obj_description(p.oid, 'pg_proc') AS comment
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
     WHERE n.nspname IN ('public', 'access')
       AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.objid = p.oid AND e.deptype = 'e')
     ORDER BY p.proname, 3`);
  const { rows: triggers } = await db.query<{ definition: string }>(`
    SELECT pg_get_triggerdef(t.oid) AS definition
      FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE NOT t.tgisinternal AND n.nspname IN ('public', 'access')
     ORDER BY c.relname, t.tgname`);
  const functions = rows.map((f) => ({
    key: `${f.schema}.${f.name}(${f.args})`,
    file: `${f.schema === 'public' ? '' : `${f.schema}.`}${f.name}.sql`,
    statement: functionStatement(f),
    standard: f.standard !== null,
  }));
  const generated = (what: string) => [
    `-- ${what}, as the migrations leave ${what.startsWith('Every') ? 'them' : 'it'} now.`,
    '-- Generated from a migrated database by `npm run -s db:functions`: read it, do not edit it (a change is',
    '-- a new migration; a test fails until this file is written again).',
    '',
  ];
  const files = new Map<string, string>();
  files.set(TRIGGERS_FILE, [...generated('Every trigger on the data'), ...triggers.map((t) => `${t.definition};`), ''].join('\n'));
  for (const f of functions) {
    const text = files.get(f.file) ?? generated(`The function ${f.key.slice(0, f.key.indexOf('('))}`).join('\n');
    files.set(f.file, [text, MARK(f.key), f.statement, ''].join('\n'));
  }
  const held = (file: string) => functions.filter((f) => f.file === file).map((f) => `\`${f.key}\``);
  const names = [...files.keys()].filter((file) => file !== TRIGGERS_FILE);
  files.set(
    INDEX_FILE,
    [
      '# The functions and triggers, as they are now',
      '',
      'Every function of the service and every trigger on the data, as the migrations leave them now: one',
      'file per function (its overloads together), and the triggers in one. Generated from a migrated database',
      'by `npm run -s db:functions` (`src/db/functions-sql.ts`): read them, do not edit them (a change is a new',
      'migration; `test/functions-sql.test.ts` fails until the files are written again).',
      '',
      `- [${TRIGGERS_FILE}](${TRIGGERS_FILE}): the triggers, by table`,
      ...names.map((file) => `- [${file}](${file}): ${held(file).join(', ')}`),
      '',
    ].join('\n'),
  );
  return { files, functions };
}
