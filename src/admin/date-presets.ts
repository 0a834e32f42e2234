// The ranges offered under a form's date range ("Today", "Last 7 days", "This month", "Last month",
// "This year"), as plain links: computed on the server from today in the service's time zone
// (TIME_ZONE), the zone the filters read their days in.

/** One formatter per time zone: building one costs more than the rest of a list page's form. */
const formats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day `at` falls on in `timeZone`, written YYYY-MM-DD. */
export function dayIn(timeZone: string, at: Date = new Date()): string {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formats.set(timeZone, format);
  }
  const parts = format.formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

export interface DatePreset {
  label: string;
  from: string;
  to: string;
}

/** The presets as of `today` (YYYY-MM-DD): both bounds inclusive, as the filters read them. */
export function datePresets(today: string): DatePreset[] {
  const [year, month, day] = today.split('-').map(Number);
  const dayOf = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);
  return [
    { label: 'Today', from: today, to: today },
    { label: 'Last 7 days', from: dayOf(year, month, day - 6), to: today },
    { label: 'This month', from: dayOf(year, month, 1), to: today },
    // Day 0 of this month is the last day of the one before.
    { label: 'Last month', from: dayOf(year, month - 1, 1), to: dayOf(year, month, 0) },
    { label: 'This year', from: dayOf(year, 1, 1), to: today },
  ];
}
