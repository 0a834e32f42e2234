import fs from 'node:fs';
import path from 'node:path';

// The folder holding package.json, whether running from src/ (tests) or dist/src/ (built).
function findRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`package.json not found above ${start}`);
    dir = parent;
  }
  return dir;
}

export const projectRoot = findRoot(__dirname);
