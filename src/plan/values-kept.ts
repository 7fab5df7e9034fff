/**
 * Attribute values that outlive their definition: the plan deletes a live attribute definition (of
 * users, tenants or a resource) while live users, tenants or instances the plan leaves as they are keep
 * a value for its key. The service keeps those values, but a value counts in decisions only while its
 * key is defined: they are silently ignored from then on. Pure. Values the configuration itself writes
 * are not listed here: the rule attributeValuesDefined warns at each of them.
 */
import type { DesiredState, Section } from '../types/desired.js';
import type { LiveState } from '../types/live.js';
import { fieldsOf, type Change } from './change.js';

export interface ValuesKept {
  /** The definition deleted: `user_attribute`, `tenant_attribute` or `resource_attribute` (of `resource`). */
  kind: 'user_attribute' | 'tenant_attribute' | 'resource_attribute';
  resource?: string;
  key: string;
  /** Who keeps a value for it: user keys, tenant keys or instance references, sorted. */
  holders: string[];
}

export function valuesKept(changes: readonly Change[], desired: DesiredState, live: LiveState): ValuesKept[] {
  const deleted = new Set<string>();
  for (const c of changes) {
    if (c.action !== 'delete') continue;
    const { kind, fields } = fieldsOf(c);
    if (kind === 'user' || kind === 'tenant') deleted.add(`${kind}:${fields.key}`);
    else if (kind === 'instance') deleted.add(`instance:${fields.resource}:${fields.key}`);
  }
  // A declared object gets the configuration's attributes: a value it writes is the rule's to report.
  const written = (section: Section, has: boolean) => desired.sections.has(section) && has;
  const holders = <T extends { attributes?: Record<string, unknown> }>(
    objects: Iterable<[string, T]>,
    key: string,
    kept: (id: string) => boolean,
  ) =>
    [...objects]
      .filter(([id, o]) => o.attributes?.[key] !== undefined && kept(id))
      .map(([id]) => id)
      .sort();
  const out: ValuesKept[] = [];
  for (const c of changes) {
    if (c.action !== 'delete') continue;
    const { kind, fields } = fieldsOf(c);
    let found: string[] = [];
    if (kind === 'user_attribute') {
      found = holders(
        live.users,
        fields.key,
        (k) => !deleted.has(`user:${k}`) && !written('users', desired.users.has(k)),
      );
    } else if (kind === 'tenant_attribute') {
      found = holders(
        live.tenants,
        fields.key,
        (k) => !deleted.has(`tenant:${k}`) && !written('tenants', desired.tenants.has(k)),
      );
    } else if (kind === 'resource_attribute') {
      const instances = [...live.resourceInstances].filter(([, i]) => i.resource === fields.resource);
      found = holders(
        instances,
        fields.key,
        (ref) => !deleted.has(`instance:${ref}`) && !written('resource_instances', desired.resourceInstances.has(ref)),
      );
    } else continue;
    if (found.length > 0)
      out.push({
        kind,
        ...(kind === 'resource_attribute' ? { resource: fields.resource } : {}),
        key: fields.key,
        holders: found,
      });
  }
  return out;
}
