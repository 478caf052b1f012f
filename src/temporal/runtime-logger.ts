import { DefaultLogger, type LogEntry, type RuntimeOptions } from '@temporalio/worker';
import type { Logger, LogLevel } from '../log.ts';

/**
 * The Temporal SDK's lines (the workers', workflows' and activities', and its native core's) in the
 * process's own log: a run's lines carry its `workflowId` (an execution's or a run's id) and
 * `runId`, an activity's its type and attempt, as the SDK's metadata gives them.
 */
export function temporalLogging(log: Logger, level: LogLevel): Pick<RuntimeOptions, 'logger' | 'telemetryOptions'> {
  const sdk = log.with({ source: 'temporal' });
  const logger = new DefaultLogger(level.toUpperCase() as Uppercase<LogLevel>, (entry: LogEntry) => {
    const method = entry.level === 'TRACE' ? 'debug' : (entry.level.toLowerCase() as LogLevel);
    sdk[method](entry.message, entry.meta ?? {});
  });
  const core = level.toUpperCase() as Uppercase<LogLevel>;
  return { logger, telemetryOptions: { logging: { forward: {}, filter: { core, other: 'WARN' } } } };
}
