// Expected failures (the database away) happen to every request at once: one line per reason and
// second tells the operator as much as a thousand, and keeps the log readable.

export type Logger = (message: string) => void;

interface Window {
  /** Lines not written since the window opened. */
  suppressed: number;
  timer: NodeJS.Timeout;
}

/**
 * Writes at most one line per reason every `everyMs`. A reason's first line is written at once; the
 * ones that follow within the window are counted, and when it closes one line says how many there
 * were, so nothing goes unreported.
 */
export class ThrottledLog {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly log: Logger,
    private readonly everyMs = 1000,
  ) {}

  write(reason: string, line: string): void {
    const open = this.windows.get(reason);
    if (open) {
      open.suppressed += 1;
      return;
    }
    this.log(line);
    const window: Window = {
      suppressed: 0,
      timer: setTimeout(() => {
        this.windows.delete(reason);
        if (window.suppressed) this.log(`${window.suppressed} more like it in ${this.everyMs} ms, not logged one by one: ${reason}`);
      }, this.everyMs).unref(),
    };
    this.windows.set(reason, window);
  }
}

const perLogger = new WeakMap<Logger, ThrottledLog>();

/** The one ThrottledLog of `log`, so that every surface writing to it shares the windows. */
export function throttled(log: Logger): ThrottledLog {
  let found = perLogger.get(log);
  if (!found) {
    found = new ThrottledLog(log);
    perLogger.set(log, found);
  }
  return found;
}
