// @apidevtools/swagger-parser needs an ES-module-only dependency, which Jest's CommonJS runtime cannot
// require on Node 20 (Node itself can). So the parser runs in a plain Node child process, fed by stdin.
import { spawn } from 'node:child_process';
import path from 'node:path';

const script = `
const SwaggerParser = require('@apidevtools/swagger-parser');
let input = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => (input += chunk)).on('end', async () => {
  try {
    const api = await SwaggerParser[process.argv[1]](JSON.parse(input));
    process.stdout.write(JSON.stringify({ api }));
  } catch (error) {
    process.stdout.write(JSON.stringify({ error: String(error && error.message || error) }));
  }
});`;

function runParser(method: 'validate' | 'dereference', document: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, method], { cwd: path.join(__dirname, '../..') });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || !out) return reject(new Error(`swagger-parser exited ${code}: ${err}`));
      const result = JSON.parse(out) as { api?: unknown; error?: string };
      if (result.error !== undefined) reject(new Error(result.error));
      else resolve(result.api);
    });
    child.stdin.end(JSON.stringify(document));
  });
}

/** Validates the document as OpenAPI (3.1 here) against the specification's schema and rules; rejects with the reasons. */
export function validateOpenApi(document: unknown): Promise<unknown> {
  return runParser('validate', document);
}

/** The document with every $ref replaced by a copy of what it points at. */
export function dereferenceOpenApi<T>(document: T): Promise<T> {
  return runParser('dereference', document) as Promise<T>;
}
