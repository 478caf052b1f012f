import { EgressError, egressFetch } from '../../egress/egress-fetch.ts';
import type { EgressPolicy } from '../../egress/egress-policy.ts';

/** What one POST got: delivered (2xx), worth another attempt, or refused for good. */
type Delivery =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry' | 'refused'; status: number | null; body: string | null; detail: string };

export interface OutgoingPost {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What a receiver's answer may weigh; only its first KiB is kept. */
const maxAnswerBytes = 64 * 1024;
const keptAnswerBytes = 1024;
const timeoutMs = 10_000;

/**
 * POSTs JSON through the egress guard, once. Network failures, 429 and 5xx may pass: they are
 * retried. Any other answer, a refused address and a redirect (never followed for a POST) are final.
 */
export async function postJson(policy: EgressPolicy, post: OutgoingPost): Promise<Delivery> {
  const headers = { ...post.headers, 'content-type': 'application/json', 'user-agent': 'Neoflow-Webhooks/1' };
  try {
    const answer = await egressFetch(policy, {
      url: post.url,
      method: 'POST',
      headers,
      body: post.body,
      timeoutMs,
      maxBytes: maxAnswerBytes,
    });
    const { status } = answer;
    if (status >= 200 && status < 300) return { kind: 'delivered', status };
    const kind = status === 429 || status >= 500 ? 'retry' : 'refused';
    const body = answer.body.subarray(0, keptAnswerBytes).toString('utf8');
    return { kind, status, body, detail: `${new URL(post.url).host} answered HTTP ${status}` };
  } catch (error) {
    if (!(error instanceof EgressError)) throw error;
    const kind = error.reason === 'unreachable' || error.reason === 'timeout' ? 'retry' : 'refused';
    return { kind, status: null, body: null, detail: error.message };
  }
}
