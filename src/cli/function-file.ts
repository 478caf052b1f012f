import { readFile, stat } from 'node:fs/promises';

/** Read before anything else: a function's code is at most 256 KiB, as the API takes it. */
const maxFileBytes = 256 * 1024;

/** A file's runtime, by its extension: TypeScript runs stripped of its types, as the service runs it. */
function runtimeOf(file: string): 'node18' | 'typescript' {
  return /\.[cm]?ts$/.test(file) ? 'typescript' : 'node18';
}

/** The code of a function's file (`fn run`, `fn deploy`) and the runtime its extension says. */
export async function readFunctionFile(file: string) {
  if ((await stat(file)).size > maxFileBytes)
    throw new Error(`${file} is over ${maxFileBytes} bytes, the limit of a function's code`);
  return { code: await readFile(file, 'utf8'), runtime: runtimeOf(file) };
}

/** `--flag NAME=VALUE` pairs (repeatable) as an object. */
export function pairs(values: string[] | undefined, flag: string): Record<string, string> {
  const entries = (values ?? []).map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`${flag} takes NAME=VALUE, not "${pair}"`);
    return [pair.slice(0, at), pair.slice(at + 1)] as const;
  });
  return Object.fromEntries(entries);
}
