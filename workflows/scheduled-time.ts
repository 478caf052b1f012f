import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';

/** Set by Temporal on every workflow a schedule starts. */
const scheduledStartTime = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/** The time the schedule that started this workflow fired it for (ISO 8601), whatever time it started. */
export function scheduledTime(): string {
  const info = workflowInfo();
  return (info.typedSearchAttributes.get(scheduledStartTime) ?? info.startTime).toISOString();
}
