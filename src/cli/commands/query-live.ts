import type { LoosePassed } from '../../access/abac/explain.js';
import { decide, permissionOn, type QueryAbac, type WhatCanResult, type WhoCanResult } from '../../access/queries.js';
import { readAuthorizedUsers, readUserPermissions } from '../../api/read-list-queries.js';
import { pdpOf } from '../../usecases/target.js';
import type { AccessState } from './access-state.js';

type Live = Extract<AccessState, { on: 'live' }>;
type Bag = Record<string, unknown>;
const bags = (passed: LoosePassed | undefined) => passed as { user?: Bag; resource?: Bag; context?: Bag } | undefined;

/** who-can --live: the users the decision point lists; the ways in from the live state's graph. */
export async function liveWhoCan(
  state: Live,
  offline: WhoCanResult,
  options: { abac: QueryAbac; passed?: LoosePassed; tenant?: string },
): Promise<WhoCanResult> {
  const [type, key] = [
    offline.instance.slice(0, offline.instance.indexOf(':')),
    offline.instance.slice(offline.instance.indexOf(':') + 1),
  ];
  const pdp = pdpOf(state.target);
  const action = offline.permission.slice(type.length + 1);
  const tenant = options.tenant ?? offline.tenant ?? 'default';
  const users = await readAuthorizedUsers(
    pdp.client,
    state.target,
    { action, type, key, tenant, passed: bags(options.passed) },
    pdp,
  );
  const ways = (user: string) => decide(state.graph, user, offline.permission, offline.instance, options).ways;
  return { ...offline, tenant, users: users.map((u) => ({ key: u, ways: ways(u) })), undecided: [] };
}

/** what-can --live: the instances the decision point lists with the action; the ways in from the live state's graph. */
export async function liveWhatCan(
  state: Live,
  offline: WhatCanResult,
  options: { abac: QueryAbac; passed?: LoosePassed; type?: string; tenant?: string },
): Promise<WhatCanResult> {
  const pdp = pdpOf(state.target);
  // The types always named: roster serve lists instances a set rule allows only for the types asked for.
  const query = {
    user: offline.user,
    types: options.type ? [options.type] : [...state.live.resources.keys()].sort(),
    ...(options.tenant ? { tenants: [options.tenant] } : {}),
    passed: bags(options.passed),
  };
  const listed = await readUserPermissions(pdp.client, state.target, query, offline.action, pdp);
  const instances = listed
    .filter((i) => options.type === undefined || i.startsWith(`${options.type}:`))
    .map((instance) => {
      const permission = permissionOn(offline.action, instance.slice(0, instance.indexOf(':'))) ?? offline.action;
      return { key: instance, ways: decide(state.graph, offline.user, permission, instance, options).ways };
    });
  return { ...offline, instances, undecided: [] };
}
