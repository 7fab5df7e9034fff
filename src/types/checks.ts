/**
 * Questions for the service's `POST /allowed/bulk`: the client asks them (src/api/read-decisions.ts) and
 * the assertions read the answers (src/access/assertions.ts), keyed by `checkKey`.
 */

/** One question for POST /allowed: a bare action on an instance. */
export interface AccessCheck {
  user: string;
  action: string;
  instance: string;
  /** `resource.tenant` of the check (the instance's tenant, as an application sends it): ABAC reads `user.roles` there. */
  tenant?: string;
  /** Attributes the check passes (ABAC: an assertion's `with:`): `user.attributes`, `resource.attributes`, `context`. */
  passed?: { user?: Record<string, unknown>; resource?: Record<string, unknown>; context?: Record<string, unknown> };
}

/** `user\0action\0instance` (then the tenant and the attributes passed, when given), the key of the answers (`decisions`). */
export const checkKey = (c: AccessCheck) =>
  `${c.user}\u0000${c.action}\u0000${c.instance}${c.tenant !== undefined || c.passed !== undefined ? `\u0000${c.tenant ?? ''}\u0000${JSON.stringify(c.passed ?? null)}` : ''}`;
