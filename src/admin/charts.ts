// Geometry of the home page's small charts, drawn as SVG by the templates. Bars sit in table rows
// (the labels and figures stay HTML text, readable at any width); the daily chart is one SVG.
import { addDays } from '../filters/days';

export interface BarRow {
  label: string;
  value: number;
  /** The figure shown beside the bar. */
  display: string;
  /** Bar length in percent of the widest. */
  width: number;
  href?: string;
  extra?: string;
}

export function barRows(items: Array<Omit<BarRow, 'width'>>, max?: number): BarRow[] {
  const top = max ?? Math.max(0, ...items.map((item) => item.value));
  return items.map((item) => ({ ...item, width: top > 0 ? Math.max(0, Math.min(100, (100 * item.value) / top)) : 0 }));
}

export interface DayColumn {
  day: string;
  checks: number;
  passed: number;
  x: number;
  width: number;
  /** Tops and heights of the passed part (bottom) and the failed part (on top), in the 0..100 box. */
  passedY: number;
  passedHeight: number;
  failedY: number;
  failedHeight: number;
}

export interface DayChart {
  viewWidth: number;
  columns: DayColumn[];
  max: number;
  total: number;
  from: string;
  to: string;
}

const HEIGHT = 100;
const STEP = 10;
const GAP = 2;

/** One column per day over `days` (in order), stacked passed / failed, scaled to the busiest day. */
export function dayChart(days: string[], counts: Map<string, { checks: number; passed: number }>): DayChart {
  const max = Math.max(1, ...days.map((day) => counts.get(day)?.checks ?? 0));
  let total = 0;
  const columns = days.map((day, i) => {
    const { checks, passed } = counts.get(day) ?? { checks: 0, passed: 0 };
    total += checks;
    const passedHeight = (HEIGHT * passed) / max;
    const failedHeight = (HEIGHT * (checks - passed)) / max;
    return {
      day,
      checks,
      passed,
      x: i * STEP + GAP / 2,
      width: STEP - GAP,
      passedY: HEIGHT - passedHeight,
      passedHeight,
      failedY: HEIGHT - passedHeight - failedHeight,
      failedHeight,
    };
  });
  return { viewWidth: days.length * STEP, columns, max, total, from: days[0], to: days[days.length - 1] };
}

/** Every day from `from` to `to`, inclusive. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) out.push(day);
  return out;
}
