import type { Context } from 'hono';
import type { Actor, AppBindings } from '../../env';
import { nowIso } from '../../lib/time';
import { AUDIT_RULES, isAudited, ORGANIZATION_PARAMS, TARGET_TYPES, type AuditedOperation } from './operations';
import type { AuditActorType, AuditEventDraft, AuditOrganization, AuditRecording, AuditSource } from './recorder';

/** The rule of a route of the manifest (`<METHOD> <path>`), when it records an event. */
export function auditedOperation(method: string, path: string): AuditedOperation | undefined {
  const rule = AUDIT_RULES[`${method} ${path}`];
  return isAudited(rule) ? rule : undefined;
}

function actorOf(actor: Actor): { actor: AuditEventDraft['actor']; source: AuditSource } | null {
  switch (actor.kind) {
    case 'user':
      return { actor: { type: 'user', id: actor.userId, label: actor.email }, source: 'api' };
    case 'operator':
      // The deployment's operator is this deployment's staff: GitBook's "support".
      return { actor: { type: 'support' satisfies AuditActorType, id: 'operator', label: 'Deployment operator' }, source: 'api' };
    case 'integration':
      return { actor: { type: 'integration', id: actor.integrationId }, source: 'integration' };
    case 'installation':
      return { actor: { type: 'installation', id: actor.grant.installationId }, source: 'integration' };
    default:
      // Visitors change no organization's state.
      return null;
  }
}

/**
 * The caller's address, coarsened before it is stored: an IPv4 address to its /24 (the last byte zeroed), an
 * IPv6 address to its /48. Enough to tell a network, not a person (the Handbook's audit log guide, "Privacy").
 */
export function coarseAddress(address: string | undefined): string | null {
  const value = address?.trim();
  if (!value) return null;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.\d{1,3}$/.exec(value);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0`;
  if (/^[0-9a-f:]+$/i.test(value) && value.includes(':')) {
    const groups = value.split('::')[0].split(':').filter(Boolean).slice(0, 3);
    while (groups.length < 3) groups.push('0');
    return `${groups.join(':')}::`;
  }
  return null;
}

export const MAX_USER_AGENT = 256;

function organizationOf(rule: AuditedOperation, params: Record<string, string>, actor: Actor): AuditOrganization | undefined {
  if (rule.organization === 'memberships') {
    const userId = params.userId ?? ('userId' in actor ? actor.userId : undefined);
    return userId ? { membershipsOf: userId } : undefined;
  }
  const param = ORGANIZATION_PARAMS.find((name) => params[name]);
  if (!param) return undefined;
  const key = params[param];
  if (param === 'organizationId') return { id: key };
  const of = ({ spaceId: 'space', collectionId: 'collection', installationId: 'installation', integrationName: 'integration', hostname: 'hostname' } as const)[param];
  return { of, key };
}

/** The event a request of an audited route records, made before its handler runs; null for a visitor. */
export function draftEvent(c: Context<AppBindings>, rule: AuditedOperation, routePath: string): AuditEventDraft | null {
  const caller = actorOf(c.get('actor'));
  if (!caller) return null;
  const params = c.req.param() as Record<string, string>;
  return {
    id: crypto.randomUUID(),
    occurredAt: nowIso(),
    action: rule.action,
    ...caller,
    target: { type: TARGET_TYPES[rule.target] ?? rule.target, id: params[rule.target] ?? '' },
    organization: organizationOf(rule, params, c.get('actor')) ?? { id: '' },
    executionId: c.get('requestId'),
    payload: {
      request: {
        method: c.req.method,
        route: routePath,
        ip: coarseAddress(c.req.header('CF-Connecting-IP')),
        userAgent: c.req.header('User-Agent')?.slice(0, MAX_USER_AGENT) ?? null,
      },
      params,
    },
  };
}

/**
 * What a handler knows that its path does not: the organization (one given in the body, or made by the request)
 * and the target (a resource it creates). Call it before the write; without an event pending, it does nothing.
 */
export function describeAuditEvent(
  c: Context<AppBindings>,
  details: { organizationId?: string; organization?: AuditOrganization; target?: { type?: string; id: string; label?: string }; payload?: Record<string, unknown> },
): void {
  const draft = c.get('audit')?.draft;
  if (!draft) return;
  if (details.organization) draft.organization = details.organization;
  if (details.organizationId) draft.organization = { id: details.organizationId };
  if (details.target) draft.target = { ...draft.target, ...details.target };
  if (details.payload) draft.payload = { ...draft.payload, ...details.payload };
}

/**
 * Hands the request's pending event to the space's writer, whose batch records it with the head move it makes
 * (durable-objects/space-writer). Undefined when the request already recorded it (or has none).
 */
export function auditForWriter(c: { get(key: 'audit'): AuditRecording | undefined }): AuditEventDraft | undefined {
  const recording = c.get('audit');
  const draft = recording?.draft ?? undefined;
  if (recording && draft) recording.draft = null;
  return draft;
}
