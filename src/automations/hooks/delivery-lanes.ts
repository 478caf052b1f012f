import { AccountSlots } from '../../functions/account-slots.ts';
import type { Rate } from '../../ratelimit/rate.ts';

/** Deliveries of one account an API process records at once; the others wait their turn. */
const perAccount = 2;
/** Deliveries of all accounts at once: fewer than the process's 10 connections (src/orm.ts), so a request of any other kind finds one. */
const running = 8;

/**
 * Turns for the deliveries an API process has admitted (hooks.control.ts), by account: a burst
 * the rates let through (60 at once to one hook by default) is recorded two at a time instead of
 * all together, so its statements wait behind each other, not in front of every other request's
 * in the pool's queue. A delivery waits here only once its credential held, so an unknown path
 * and a wrong credential still take the same time. The waiting room holds an account's whole
 * rate: within its rate, a burst waits, it is never refused.
 */
export const deliveryLanes = (accountRate: Rate) =>
  new AccountSlots({
    perAccount,
    running,
    queuedPerAccount: accountRate.requests,
    queued: 4 * accountRate.requests,
  });
