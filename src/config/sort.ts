/** Sorting the desired state (src/types/desired.ts): the last step of normalisation. */
import { derivationKey, SECTIONS, type DesiredState, type DesiredTuple, type Section } from '../types/desired.js';

const tupleKey = (t: DesiredTuple) => `${t.relation}\0${t.subject}`;

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Final step of normalisation, after the rules ran on the lists in the order written (so problems can
 * point at list items): sorts every list and every map by key, deterministically.
 */
export function sortDesiredState(d: DesiredState): DesiredState {
  const sortMap = <V>(m: Map<string, V>) => new Map([...m.entries()].sort((a, b) => byString(a[0], b[0])));
  for (const r of d.resources.values()) {
    r.actions = [...new Set(r.actions)].sort(byString);
    if (r.roles) {
      r.roles = uniqueBy(r.roles, (x) => x.key).sort((a, b) => byString(a.key, b.key));
      for (const x of r.roles) {
        x.permissions = [...new Set(x.permissions)].sort(byString);
        x.extends = [...new Set(x.extends)].sort(byString);
        x.grantedTo = uniqueBy(x.grantedTo, derivationKey).sort((a, b) => byString(derivationKey(a), derivationKey(b)));
      }
    }
    if (r.relations) r.relations = uniqueBy(r.relations, (x) => x.key).sort((a, b) => byString(a.key, b.key));
    if (r.attributes) r.attributes = uniqueBy(r.attributes, (x) => x.key).sort((a, b) => byString(a.key, b.key));
  }
  for (const i of d.resourceInstances.values()) {
    if (i.relations)
      i.relations = uniqueBy(i.relations, tupleKey).sort(
        (a, b) => byString(a.relation, b.relation) || byString(a.subject, b.subject),
      );
  }
  for (const r of d.roles.values()) {
    r.permissions = [...new Set(r.permissions)].sort(byString);
    if (r.extends) r.extends = [...new Set(r.extends)].sort(byString);
  }
  for (const u of d.users.values()) {
    u.tenants = [...new Set([...u.tenants, ...u.roles.map((r) => r.tenant)])].sort(byString);
    u.roles = uniqueBy(u.roles, (r) => `${r.tenant}\0${r.role}\0${r.on ?? ''}`);
    u.roles.sort(
      (a, b) => byString(a.tenant, b.tenant) || byString(a.role, b.role) || byString(a.on ?? '', b.on ?? ''),
    );
  }
  for (const g of d.groups.values()) {
    g.members = [...new Set(g.members)].sort(byString);
    g.memberOf = [...new Set(g.memberOf)].sort(byString);
    g.roles = uniqueBy(g.roles, (r) => `${r.role}\0${r.on}`);
    g.roles.sort((a, b) => byString(a.role, b.role) || byString(a.on, b.on));
  }
  for (const a of d.accessRequests.values()) a.reviewerRoles = [...new Set(a.reviewerRoles)].sort(byString);
  return {
    ...d,
    sections: new Set(SECTIONS.filter((s) => d.sections.has(s))),
    ...(Array.isArray(d.authoritative)
      ? { authoritative: SECTIONS.filter((s) => (d.authoritative as Section[]).includes(s)) }
      : {}),
    resources: sortMap(d.resources),
    roles: sortMap(d.roles),
    tenants: sortMap(d.tenants),
    users: sortMap(d.users),
    resourceInstances: sortMap(d.resourceInstances),
    groups: sortMap(d.groups),
    accessRequests: sortMap(d.accessRequests),
    userAttributes: sortMap(d.userAttributes),
    tenantAttributes: sortMap(d.tenantAttributes),
    conditionSets: sortMap(d.conditionSets),
    setRules: sortMap(d.setRules),
  };
}

function uniqueBy<T>(items: T[], id: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of items) if (!seen.has(id(item))) seen.set(id(item), item);
  return [...seen.values()];
}
