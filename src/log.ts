const levels = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof levels;

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** One line per event: time, level, component, message, then `key=value` fields. */
export function createLogger(component: string, minLevel: LogLevel = 'info'): Logger {
  const write =
    (level: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (levels[level] < levels[minLevel]) return;
      const pairs = Object.entries(fields).map(([key, value]) => `${key}=${format(value)}`);
      process.stdout.write(
        [new Date().toISOString(), level.toUpperCase(), component, message, ...pairs].join(' ') + '\n',
      );
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

function format(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  return typeof value === 'string' && /^[\w./:@-]*$/.test(value) ? value : JSON.stringify(value);
}
