import { USER_FILENAME } from './compile.ts';
import { type SandboxError } from './types.ts';

const STACK_FRAME = /^\s+at /;
const USER_FRAME = new RegExp(`[\\s(]${USER_FILENAME.replace('.', '\\.')}:\\d+:\\d+\\)?$`);

/** An error raised by the sandbox itself (timeout, memory, result size), not by user code. */
export function sandboxError(name: string, message: string): SandboxError {
  return { name, message, stack: `${name}: ${message}` };
}

/**
 * Keeps the message lines and the frames of the user's code: bootstrap, isolated-vm boundary and
 * host frames would reveal the service's internals and mean nothing to the user.
 */
function trimStack(stack: string): string {
  return stack
    .split('\n')
    .filter((line) => !STACK_FRAME.test(line) || USER_FRAME.test(line))
    .join('\n');
}

/** Normalises an error from user code, whichever side of the isolate boundary it surfaced on. */
export function userError(error: { name?: unknown; message?: unknown; stack?: unknown }): SandboxError {
  const name = typeof error.name === 'string' ? error.name : 'Error';
  const message = typeof error.message === 'string' ? error.message : String(error.message);
  const stack = typeof error.stack === 'string' ? trimStack(error.stack) : '';
  return { name, message, stack: stack || `${name}: ${message}` };
}
