/** The floor's only activity: does nothing, so what is measured is Temporal's own cost. */
export const floorActivities = { noop: async () => {} };

export type FloorActivities = typeof floorActivities;
