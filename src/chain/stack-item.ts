// What the Neo VM answers, as the node's JSON shows it: shared by the RPC client and the decoders.

/** A stack item as the node shows it; the shape of `value` depends on `type`. */
export interface StackItem {
  type: string;
  value?: unknown;
}

/** The outcome of a script the node ran without persisting anything (`invokescript`). */
export interface Invocation {
  state: 'HALT' | 'FAULT';
  /** In GAS fractions (10^-8 GAS): the system fee the script needs. */
  gasconsumed: string;
  exception: string | null;
  stack: StackItem[];
}
