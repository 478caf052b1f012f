import { pino, type DestinationStream, type Logger as Pino } from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger whose every line also carries `fields` (a request id, a workflow id). */
  with(fields: Record<string, unknown>): Logger;
}

/**
 * Structured logs (pino): one JSON object a line (`time`, `level`, `component`, `msg`, then the
 * fields) when the output is a file or a pipe, for a log collector; one readable line an event
 * when it is a terminal.
 */
export function createLogger(component: string, minLevel: LogLevel = 'info', output = process.stdout): Logger {
  const destination: DestinationStream = output.isTTY ? readableLines(output) : pino.destination({ fd: 1, sync: true });
  return wrap(
    pino(
      {
        level: minLevel,
        base: { component },
        messageKey: 'msg',
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      },
      destination,
    ),
  );
}

function wrap(logger: Pino): Logger {
  const write =
    (level: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      logger[level](plain(fields), message);
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    with: (fields) => wrap(logger.child(plain(fields))),
  };
}

/** An Error as its message: a stack goes where a caller puts it, never by accident. */
function plain(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [key, value instanceof Error ? value.message : value]),
  );
}

/** `time LEVEL component message key=value …`, for a person at a terminal. */
function readableLines(output: NodeJS.WriteStream): DestinationStream {
  return {
    write(line: string) {
      const { time, level, component, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
      const pairs = Object.entries(fields).map(([key, value]) => `${key}=${format(value)}`);
      output.write(`${[time, String(level).toUpperCase(), component, msg, ...pairs].join(' ')}\n`);
    },
  };
}

function format(value: unknown): string {
  return typeof value === 'string' && /^[\w./:@-]*$/.test(value) ? value : JSON.stringify(value);
}
