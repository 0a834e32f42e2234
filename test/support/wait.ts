/** Polls `check` until it holds; fails with `what` (and the last value seen) after `ms`. */
export async function eventually<T>(
  check: () => Promise<T> | T,
  { ms = 5000, every = 20, what = 'the condition' } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${ms} ms (last: ${String(value)})`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/**
 * Asserts that `check` holds throughout the next `ms`: for a test whose claim is that something does
 * NOT happen (no further statement, no late answer), the observation window is the assertion.
 */
export async function holdsFor(
  check: () => Promise<boolean> | boolean,
  ms: number,
  { every = 20, what = 'the condition' } = {},
): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (!(await check())) throw new Error(`${what} stopped holding within ${ms} ms`);
    if (Date.now() >= end) return;
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
