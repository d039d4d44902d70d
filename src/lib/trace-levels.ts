/**
 * Levels of the lines of an integration event's trace: what the runtime records of a script's console
 * (services/integrations/runtime) and what the API shows (schemas/integration-event).
 */
export const TRACE_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type TraceLevel = (typeof TRACE_LEVELS)[number];
