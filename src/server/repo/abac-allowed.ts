import { DEFAULT_TENANT } from '../../rules/names.js';
import type { Queryable } from '../store/db.js';
import {
  asJsonObject,
  checkAttributes,
  decideAbac,
  type AbacDecision,
  type Bag,
  type JsonObject,
} from '../../access/conditions/index.js';
import { parseJson } from './common.js';
import { abacSnapshot } from './abac-model.js';

/** The SDKs' check body, as /allowed receives it (routes/allowed.ts validated its shape). */
export interface CheckBody {
  user: string | { key: string; attributes?: unknown };
  action: string;
  resource: string | { type: string; key?: string | null; tenant?: string | null; attributes?: unknown };
  context?: unknown;
}

/** Rounds of loading instances named through `fk_resource_type` (instances naming instances): bounded. */
const FK_ROUNDS = 4;

/**
 * ABAC's part of /allowed (api-notes "Decision point"): the environment's sets and rules (remembered,
 * repo/abac-model.ts), the check's stored facts (user, roles in the check's tenant, tenant, instance) in
 * two statements, the attributes and context passed in the check, decided by the shared pure core
 * (src/access/conditions). Nothing is read when no rule grants the check's `type:action`.
 */
export async function abacAllows(q: Queryable, envId: string, body: CheckBody): Promise<boolean> {
  return (await abacDecision(q, envId, body)).allow;
}

/** The same decision, with the rule that allowed (its user set names an ABAC holder: repo/authorized-users.ts). */
export async function abacDecision(q: Queryable, envId: string, body: CheckBody): Promise<AbacDecision> {
  const { model, defined, granted } = await abacSnapshot(q, envId);
  const user = typeof body.user === 'string' ? { key: body.user } : body.user;
  const resource = typeof body.resource === 'string' ? refOf(body.resource) : body.resource;
  if (!granted.has(`${resource.type}:${body.action}`)) return { allow: false };
  const tenantKey = resource.tenant || DEFAULT_TENANT;
  const facts = await q.get<{
    user_id: string | null;
    email: string | null;
    first_name: string | null;
    last_name: string | null;
    user_attributes: string | null;
    tenant_attributes: string | null;
    instance_attributes: string | null;
  }>(
    `SELECT u.id AS user_id, u.email, u.first_name, u.last_name, u.attributes AS user_attributes,
       (SELECT attributes FROM tenants WHERE env_id = ? AND key = ?) AS tenant_attributes,
       (SELECT ri.attributes FROM resource_instances ri JOIN resources r ON r.id = ri.resource_id WHERE r.env_id = ? AND r.key = ? AND ri.key = ?) AS instance_attributes
     FROM (SELECT 1 AS one) x LEFT JOIN users u ON u.env_id = ? AND u.key = ?`,
    [envId, tenantKey, envId, resource.type, resource.key ?? '', envId, user.key],
  );
  // Every assignment's tenant (membership: `user.tenants`, tenant attributes) and the top-level roles held tenant-wide here (`user.roles`).
  const held = facts?.user_id
    ? await q.all<{ tenant: string; role: string; attributes: string | null; tenant_wide: number }>(
        `SELECT DISTINCT t.key AS tenant, r.key AS role, r.attributes,
           CASE WHEN ra.resource_instance_id IS NULL AND r.resource_id IS NULL THEN 1 ELSE 0 END AS tenant_wide
         FROM role_assignments ra JOIN tenants t ON t.id = ra.tenant_id JOIN roles r ON r.id = ra.role_id WHERE ra.user_id = ?`,
        [facts.user_id],
      )
    : [];
  const here = held.filter((h) => h.tenant === tenantKey && Number(h.tenant_wide) === 1);
  const tenants = [...new Set(held.map((h) => h.tenant))];
  const bags = checkAttributes({
    user: {
      key: user.key,
      stored: facts?.user_id
        ? {
            email: facts.email,
            first_name: facts.first_name,
            last_name: facts.last_name,
            attributes: parseJson<JsonObject>(facts.user_attributes, {}),
          }
        : undefined,
      rolesInTenant: here.map((h) => h.role),
      tenants,
      passed: asJsonObject(user.attributes),
    },
    resource: {
      type: resource.type,
      stored: facts?.instance_attributes ? parseJson<JsonObject>(facts.instance_attributes, {}) : undefined,
      passed: asJsonObject(resource.attributes),
    },
    tenant: {
      key: tenantKey,
      stored: facts?.tenant_attributes ? parseJson<JsonObject>(facts.tenant_attributes, {}) : undefined,
      member: tenants.includes(tenantKey),
    },
    context: asJsonObject(body.context),
    roleAttributes: here.map((h) => parseJson<JsonObject>(h.attributes, {})),
    defined: {
      user: defined.user,
      tenant: defined.tenant,
      resource: defined.byResource.get(resource.type) ?? new Set(),
    },
  });
  const instances = new Map<string, Bag | null>();
  for (let round = 0; ; round++) {
    const missing = new Set<string>();
    const decision = decideAbac(model, { type: resource.type, action: body.action }, bags, { instances, missing });
    if (decision.allow || missing.size === 0 || round === FK_ROUNDS) return decision;
    for (const ref of missing) instances.set(ref, await storedInstance(q, envId, ref, defined.byResource));
  }
}

function refOf(text: string): { type: string; key?: string; tenant?: string; attributes?: unknown } {
  const i = text.indexOf(':');
  return i < 0 ? { type: text } : { type: text.slice(0, i), key: text.slice(i + 1) };
}

/** An instance's stored attributes that have a definition (`fk_resource_type`), or null when there is none. */
async function storedInstance(
  q: Queryable,
  envId: string,
  ref: string,
  defined: Map<string, Set<string>>,
): Promise<Bag | null> {
  const [type, key] = [ref.slice(0, ref.indexOf(':')), ref.slice(ref.indexOf(':') + 1)];
  const row = await q.get<{ attributes: string }>(
    `SELECT ri.attributes FROM resource_instances ri JOIN resources r ON r.id = ri.resource_id WHERE r.env_id = ? AND r.key = ? AND ri.key = ?`,
    [envId, type, key],
  );
  if (!row) return null;
  const keys = defined.get(type) ?? new Set();
  return Object.fromEntries(Object.entries(parseJson<JsonObject>(row.attributes, {})).filter(([k]) => keys.has(k)));
}
