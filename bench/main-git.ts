// What the bench records of the code it measures: the commit checked out and how many files differed
// from it when the run began (bench/main.ts's JSON results and the line above its tables; bench/record.ts).
import { spawnSync } from 'node:child_process';
import { projectRoot } from '../src/bench-entry';

/** A git command's output in the project, or nothing when it fails (no git, not a checkout). */
export function git(args: string[]): string {
  const run = spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : '';
}

/** The code measured: the commit and how many files differed from it when the run began. */
export const gitAtStart = {
  commit: git(['rev-parse', 'HEAD']),
  changedFiles: git(['status', '--porcelain']).split('\n').filter(Boolean).length,
};
