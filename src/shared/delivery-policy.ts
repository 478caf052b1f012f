/**
 * How a webhook (an action or a notification) is retried: a network error, a 429 or a 5xx is
 * tried again after 1, 2, 4, … seconds (at most 60 between two), 8 attempts in all (about two
 * minutes); any other answer is final at once. Plain values: workflows import them too.
 */
export const deliveryAttempts = 8;

export const deliveryRetry = {
  maximumAttempts: deliveryAttempts,
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '60 seconds',
} as const;

/** One attempt: the egress guard's own limit (10 s) and time to record what it got. */
export const deliveryAttemptTimeout = '20 seconds';
