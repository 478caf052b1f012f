import ivm from 'isolated-vm';
import { type BootstrapEntry, evaluateBootstrap } from './bootstrap.ts';

/** A fresh isolate with its context and the bootstrap evaluated: ready for one run, used by none. */
export interface PreparedIsolate {
  isolate: ivm.Isolate;
  context: ivm.Context;
  bootstrap: BootstrapEntry;
}

/** Where a run takes its isolate from; each isolate serves exactly one run and is then disposed. */
export interface IsolateSource {
  take(memoryLimitMb: number): Promise<PreparedIsolate>;
  /** Called once a run has ended and its outcome is on its way: a moment to prepare the next. */
  replenish(): void;
}

export async function prepareIsolate(memoryLimitMb: number): Promise<PreparedIsolate> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryLimitMb });
  try {
    const context = await isolate.createContext();
    return { isolate, context, bootstrap: await evaluateBootstrap(isolate, context) };
  } catch (error) {
    isolate.dispose();
    throw error;
  }
}

/** Prepares each isolate when its run asks for it. */
export const freshIsolates: IsolateSource = { take: prepareIsolate, replenish: () => {} };
