import { testApi } from '../support/http.ts';

/** One invoke the load sent: `n` is its parameter, unique across the load. */
export interface SentInvoke {
  n: number;
  mode: 'sync' | 'async';
  /** The answer's status, or undefined when none came (the API died with the request in flight). */
  status: number | undefined;
  /** The execution the API acknowledged (200 or 202). */
  executionId: string | undefined;
}

/**
 * Invokes of one function from `lanes` clients at once, alternately synchronous and
 * asynchronous, spread over the APIs that are up (as a load balancer does), each with a
 * parameter `n` of its own. A request left unanswered is not retried: whether it ran is what the
 * test checks.
 */
export function startInvokeLoad(options: { apis: () => string[]; key: string; functionId: string; lanes: number }) {
  const sent: SentInvoke[] = [];
  let stopping = false;
  let next = 0;
  const lane = async () => {
    while (!stopping) {
      const apis = options.apis();
      const n = next++;
      const mode = n % 2 === 0 ? 'sync' : 'async';
      const invoke: SentInvoke = { n, mode, status: undefined, executionId: undefined };
      sent.push(invoke);
      const answer = await testApi(apis[n % apis.length]!, options.key)(
        'POST',
        `/functions/${options.functionId}/invoke`,
        {
          params: { n },
          async: mode === 'async',
        },
      ).catch(() => undefined);
      invoke.status = answer?.status;
      if (answer && (answer.status === 200 || answer.status === 202))
        invoke.executionId = answer.body.data?.execution?.id as string | undefined;
    }
  };
  const running = Promise.all(Array.from({ length: options.lanes }, lane));
  return {
    sent,
    acknowledged: () => sent.filter((invoke) => invoke.executionId !== undefined).length,
    async stop(): Promise<SentInvoke[]> {
      stopping = true;
      await running;
      return sent;
    },
  };
}
