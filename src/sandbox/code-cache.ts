import type ivm from 'isolated-vm';

// V8's code cache of each of the sandbox's own scripts, made by the first isolate of the process:
// every later fresh isolate skips their parse (about 1.2 of the ~1.4 ms they cost uncached,
// measured in docs/performance.md). Keyed by file name: the sources never change in a process.
const codeCache = new Map<string, ivm.ExternalCopy<ArrayBuffer>>();

type CompiledScript = ivm.Script & ivm.CachedDataResult & { cachedDataRejected?: boolean };

/** Runs one of the sandbox's scripts in `context` from the code cache, and answers a reference to its value. */
export async function runCached(
  isolate: ivm.Isolate,
  context: ivm.Context,
  source: string,
  filename: string,
): Promise<ivm.Reference> {
  const cachedData = codeCache.get(filename);
  const options = cachedData ? { filename, cachedData } : { filename, produceCachedData: true };
  // isolated-vm sets these on the script it answers; its typings leave them out.
  const script = (await isolate.compileScript(source, options)) as CompiledScript;
  try {
    // A cache V8 rejects (made under other flags) is dropped; this isolate compiled the source anyway.
    if (cachedData && script.cachedDataRejected) codeCache.delete(filename);
    if (!cachedData && script.cachedData) codeCache.set(filename, script.cachedData);
    return await script.run(context, { reference: true });
  } finally {
    script.release();
  }
}
