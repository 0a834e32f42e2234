// The embedded PostgreSQL server's memory allocator, tuned (measured in docs/runs/BENCHMARKS.md; see src/runtime/README.md).

/**
 * glibc's malloc settings for the server's processes. By default glibc serves any allocation of
 * 128 KB or more with its own mmap and hands it back at once, and gives freed memory at the top of the
 * heap back too: a statement that builds a large value (a list page is one ~250 KB text, copied a few
 * times on its way out) then takes fresh pages, and a page fault for each, on every run. On the bench
 * machine that was most of the page's time: 198 against 947 statements a second (pgbench, 16
 * connections). Below 4 MB from the heap, and the heap kept until 16 MB of it is free: each backend
 * keeps at most that much more memory. The environment may override either.
 */
export const SERVER_MALLOC = { MALLOC_MMAP_THRESHOLD_: String(4 * 1024 * 1024), MALLOC_TRIM_THRESHOLD_: String(16 * 1024 * 1024) };
