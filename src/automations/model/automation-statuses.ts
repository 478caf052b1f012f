/** An automation's statuses: the API sets active or inactive, the service error when it stops one. */
export const automationStatuses = ['active', 'inactive', 'error'] as const;
export type AutomationStatus = (typeof automationStatuses)[number];
