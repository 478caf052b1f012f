/**
 * The signal the API sends a run's workflow once a key approved or rejected it
 * (src/automations/approvals/approvals.control.ts), and the reconciler sends again for a decision
 * whose signal was lost. It carries nothing: the workflow reads the decision from the rows.
 */
export const approvalDecidedSignal = 'approvalDecided';
