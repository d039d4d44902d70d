/**
 * What the public schemas of conversations (schemas/conversation) share with their analysis and records
 * (services/conversations), which the queue consumer runs without the schemas.
 */

/** Weeks of a cluster's `weeklyPulse`, the current one last. */
export const PULSE_WEEKS = 13;

export const IMPACTS = ['low', 'medium', 'high'] as const;
export type Impact = (typeof IMPACTS)[number];
