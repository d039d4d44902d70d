import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { createDb } from '../db/client';
import type { AppBindings } from '../env';
import { auditedOperation, draftEvent } from '../services/audit/context';
import { recordingClient, type AuditRecording } from '../services/audit/recorder';

/**
 * The audit log's part of a state-changing route (services/audit/operations.ts says which): the request's event,
 * drafted from its caller and path, and a database client whose first write carries it (services/audit/recorder).
 * Undefined for a route that records nothing, so reads pay nothing.
 */
export function auditRecording(method: string, path: string): MiddlewareHandler<AppBindings> | undefined {
  const rule = auditedOperation(method, path);
  if (!rule) return undefined;
  return createMiddleware<AppBindings>(async (c, next) => {
    const draft = draftEvent(c, rule, path);
    if (draft) {
      const recording: AuditRecording = { draft, inFlight: false };
      c.set('audit', recording);
      c.set('db', createDb(recordingClient(c.get('d1'), recording)));
    }
    await next();
  });
}
