/**
 * Questions for the service's `POST /allowed/bulk`: the client asks them (src/api/read-decisions.ts) and
 * the assertions read the answers (src/access/assertions.ts), keyed by `checkKey`.
 */

/** One question for POST /allowed: a bare action on an instance. */
export interface AccessCheck {
  user: string;
  action: string;
  instance: string;
}

/** `user\0action\0instance`, the key of the answers (`decisions`). */
export const checkKey = (c: AccessCheck) => `${c.user}\u0000${c.action}\u0000${c.instance}`;
