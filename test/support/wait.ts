/** Polls `check` until it holds; fails with `what` (and the last value seen) after `ms`. */
export async function eventually<T>(check: () => Promise<T> | T, { ms = 5000, every = 20, what = 'the condition' } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${ms} ms (last: ${String(value)})`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
