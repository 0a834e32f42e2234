// Time in the demo seed: everything is relative to an anchor so that the data never depends on the clock.

export const SECOND = 1000;
export const HOUR = 3600 * SECOND;
export const DAY = 24 * HOUR;
export const DEMO_ANCHOR = Date.UTC(2026, 9, 31); // 2026-10-31T00:00:00Z

export const timestamp = (ms: number): string => new Date(ms).toISOString();
