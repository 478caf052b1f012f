import { type LogLevel, type LogLine } from './types.ts';

export const MAX_LOG_LINES = 1_000;
export const MAX_LOG_LINE_BYTES = 4 * 1024;
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

const DROPPED_MARKER = 'Log limit reached: further lines of this execution were dropped.';

/** Collects the lines of one run under the caps of contract.md; the host side is authoritative. */
export class LogCollector {
  readonly #lines: LogLine[] = [];
  #dropped = false;

  add(level: unknown, message: unknown): void {
    if (this.#dropped) return;
    if (this.#lines.length >= MAX_LOG_LINES) {
      this.#dropped = true;
      this.#lines.push(line('warn', DROPPED_MARKER));
      return;
    }
    const known = LOG_LEVELS.find((candidate) => candidate === level) ?? 'info';
    this.#lines.push(line(known, truncateUtf8(String(message), MAX_LOG_LINE_BYTES)));
  }

  lines(): LogLine[] {
    return [...this.#lines];
  }
}

function line(level: LogLevel, message: string): LogLine {
  return { level, message, timestamp: new Date().toISOString() };
}

/** Cuts to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  // A partial sequence at the cut decodes to U+FFFD; dropping it keeps the text clean.
  return bytes
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}
