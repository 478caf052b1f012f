import { outputLimits, type OutputText } from './output.ts';
import { type LogLevel, type LogLine } from './types.ts';

const logLevels: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

const droppedMarker = 'Log limit reached: further lines of this execution were dropped.';

/** Collects the lines of one run under the caps of contract.md; the host side is authoritative. */
export class LogCollector {
  readonly #lines: LogLine[] = [];
  readonly #output: OutputText;
  #dropped = false;

  constructor(output: OutputText) {
    this.#output = output;
  }

  add(level: unknown, message: unknown): void {
    if (this.#dropped) return;
    if (this.#lines.length >= outputLimits.logLines) {
      this.#dropped = true;
      this.#lines.push(line('warn', droppedMarker));
      return;
    }
    const known = logLevels.find((candidate) => candidate === level) ?? 'info';
    const text = typeof message === 'string' ? message : '';
    this.#lines.push(line(known, this.#output.text(text, outputLimits.logLineBytes)));
  }

  lines(): LogLine[] {
    return [...this.#lines];
  }
}

function line(level: LogLevel, message: string): LogLine {
  return { level, message, timestamp: new Date().toISOString() };
}
