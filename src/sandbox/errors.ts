import { userFilename } from './compile.ts';
import { outputLimits, type OutputText } from './output.ts';
import { type SandboxError } from './types.ts';

const stackFrame = /^\s+at /;
const userFrame = new RegExp(`[\\s(]${userFilename.replace('.', '\\.')}:\\d+:\\d+\\)?$`);
// A script's top level runs as global eval code in the isolate: its frame reads as a script's.
const topLevelFrame = new RegExp(`^(\\s+at )eval \\((${userFilename.replace('.', '\\.')}:\\d+:\\d+)\\)$`);

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
    .filter((line) => !stackFrame.test(line) || userFrame.test(line))
    .map((line) => line.replace(topLevelFrame, '$1$2'))
    .join('\n');
}

/**
 * Normalises an error from user code, whichever side of the isolate boundary it surfaced on: each
 * field masked, capped and made storable like every text the code sends out.
 */
export function userError(
  error: { name?: unknown; message?: unknown; stack?: unknown },
  output: OutputText,
): SandboxError {
  const name = output.text(typeof error.name === 'string' ? error.name : 'Error', outputLimits.errorNameBytes);
  const message = output.text(typeof error.message === 'string' ? error.message : '', outputLimits.errorMessageBytes);
  // Cut before the frames are filtered: an error raised at the top level crosses uncut.
  const uncut =
    typeof error.stack === 'string' ? error.stack.slice(0, outputLimits.errorStackBytes + output.slackChars) : '';
  const stack = output.text(trimStack(uncut), outputLimits.errorStackBytes);
  return { name, message, stack: stack || `${name}: ${message}` };
}
