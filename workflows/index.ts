export { blockFollower } from './block-follower.ts';
export { deliverNotification } from './deliver-notification.ts';
export { executeFunction } from './execute-function.ts';
export { pingWorkflow } from './ping.ts';
export { pricePoller } from './price-poller.ts';
export { recoverySweep } from './recovery-sweep.ts';
export { runAction } from './run-action.ts';
export { scheduledFire } from './scheduled-fire.ts';
