// The embedded server's processes run with glibc's malloc kept from giving every large value's memory
// back (src/runtime/malloc.ts, SERVER_MALLOC): read from the environment of the postmaster that forks the
// backends (a backend writes its process title over its own). Only with the
// embedded default: a server given by DATABASE_URL is started by its operator (docs/MEMORY.md).
import fs from 'node:fs';
import { testApp, type TestApp } from './support/app';

const embedded = !process.env.DATABASE_URL;
let t: TestApp;
beforeAll(() => {
  t = testApp('fixture');
});
afterAll(() => t.close());

// Skipped with DATABASE_URL, and its name says why.
(embedded ? test : test.skip)(
  'backends keep allocations under 4 MB on their heap and trim it only past 16 MB (embedded default only: a DATABASE_URL server is run by its operator)',
  async () => {
    const { rows } = await t.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const parent = fs
      .readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ')[1];
    const environment = fs.readFileSync(`/proc/${parent}/environ`, 'utf8').split('\0');
    expect(environment).toEqual(expect.arrayContaining(['MALLOC_MMAP_THRESHOLD_=4194304', 'MALLOC_TRIM_THRESHOLD_=16777216']));
  },
);
