/**
 * "If approved" on the whole environment (src/review/impact-live.ts), through the real server, source and
 * controller: a request is filed through the API, its details opened with keys, and the detail pane's
 * lines read as the screen draws them. Derived access over relationship tuples, set rules on `user.roles`,
 * and set rules that also read stored user attributes (issue 39).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReviewController, createReviewSource } from '../../src/review/index.js';
import { buildDetailLines } from '../../src/review/details.js';
import { named } from '../../src/review/keys.js';
import type { ApiClient } from '../../src/api/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { clientFor } from './world.js';

let server: TestServer;
let client: ApiClient;

const ok = async (p: Promise<{ status: number; body: unknown }>) => {
  const r = await p;
  if (r.status >= 300) throw new Error(`setup failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};

/**
 * Folders and documents (a document's `parent` is a folder; `editor` on a folder derives `editor` on its
 * documents), the stored user attribute `level`, documents' `amount`; user sets on `user.roles` alone
 * (`managers`) and on `user.roles` with `user.level` (`senior-approvers`), a resource set on `amount`
 * and one on `context.urgent`. Tenant acme: folder:finance holding document:budget (amount 50) and
 * document:plan (amount 500), document:loose in no folder; bob reviews; alice is at level 4, dave at 2.
 */
beforeAll(async () => {
  server = await startTestServer();
  client = clientFor(server);
  const s = server;
  const editor = { editor: { name: 'editor', permissions: ['read', 'write'] } };
  await ok(
    s.schema('POST', '/resources', { key: 'folder', name: 'Folder', actions: { read: {}, write: {} }, roles: editor }),
  );
  await ok(
    s.schema('POST', '/resources', {
      key: 'document',
      name: 'Document',
      actions: { read: {}, write: {}, approve: {}, escalate: {}, comment: {} },
      roles: editor,
      relations: { parent: 'folder' },
      attributes: { amount: { type: 'number' } },
    }),
  );
  await ok(
    s.schema('POST', '/resources/document/roles/editor/implicit_grants', {
      role: 'editor',
      on_resource: 'folder',
      linked_by_relation: 'parent',
    }),
  );
  for (const key of ['approver', 'manager', 'senior'])
    await ok(s.schema('POST', '/roles', { key, name: key, permissions: [] }));
  await ok(s.schema('POST', '/users/attributes', { key: 'level', type: 'number' }));
  await ok(
    s.schema('POST', '/condition_sets', {
      key: 'managers',
      name: 'Managers',
      type: 'userset',
      conditions: { allOf: [{ 'user.roles': { array_contains: 'manager' } }] },
    }),
  );
  await ok(
    s.schema('POST', '/condition_sets', {
      key: 'senior-approvers',
      name: 'Senior approvers',
      type: 'userset',
      conditions: {
        allOf: [{ 'user.roles': { array_contains: 'senior' } }, { 'user.level': { 'greater-than-equals': 3 } }],
      },
    }),
  );
  await ok(
    s.schema('POST', '/condition_sets', {
      key: 'non-managers',
      name: 'Others',
      type: 'userset',
      conditions: { allOf: [{ not: { 'user.roles': { array_contains: 'manager' } } }] },
    }),
  );
  await ok(
    s.schema('POST', '/condition_sets', {
      key: 'small-docs',
      name: 'Small',
      type: 'resourceset',
      resource_id: 'document',
      conditions: { allOf: [{ 'resource.amount': { 'less-than': 100 } }] },
    }),
  );
  await ok(
    s.schema('POST', '/condition_sets', {
      key: 'urgent',
      name: 'Urgent',
      type: 'resourceset',
      resource_id: 'document',
      conditions: { allOf: [{ 'context.urgent': { equals: true } }] },
    }),
  );
  await ok(
    s.facts('POST', '/set_rules', { user_set: 'managers', permission: 'document:write', resource_set: 'small-docs' }),
  );
  await ok(
    s.facts('POST', '/set_rules', { user_set: 'managers', permission: 'document:escalate', resource_set: 'urgent' }),
  );
  await ok(
    s.facts('POST', '/set_rules', {
      user_set: 'non-managers',
      permission: 'document:comment',
      resource_set: 'small-docs',
    }),
  );
  await ok(
    s.facts('POST', '/set_rules', {
      user_set: 'senior-approvers',
      permission: 'document:approve',
      resource_set: 'small-docs',
    }),
  );
  await ok(s.facts('POST', '/tenants', { key: 'acme', name: 'Acme' }));
  await ok(s.facts('POST', '/resource_instances', { key: 'finance', resource: 'folder', tenant: 'acme' }));
  for (const [key, amount] of [
    ['budget', 50],
    ['plan', 500],
    ['loose', 10],
  ] as const) {
    await ok(
      s.facts('POST', '/resource_instances', { key, resource: 'document', tenant: 'acme', attributes: { amount } }),
    );
  }
  for (const doc of ['budget', 'plan'])
    await ok(
      s.facts('POST', '/relationship_tuples', {
        subject: 'folder:finance',
        relation: 'parent',
        object: `document:${doc}`,
        tenant: 'acme',
      }),
    );
  await ok(s.facts('POST', '/users', { key: 'bob' }));
  await ok(s.facts('POST', '/users', { key: 'alice', attributes: { level: 4 } }));
  await ok(s.facts('POST', '/users', { key: 'dave', attributes: { level: 2 } }));
  await ok(s.facts('POST', '/role_assignments', { user: 'bob', role: 'approver', tenant: 'acme' }));
  for (const key of ['alice', 'dave']) await ok(s.facts('POST', '/tenants/acme/users', { key }));
  await ok(
    s.call('POST', '/v2/elements/p/e/config', {
      key: 'default',
      name: 'Default',
      elements_type: 'user_management',
      settings: {},
      roles_to_levels: { LEVEL_1: ['approver'] },
    }),
  );
});
afterAll(async () => {
  await client.close();
  await server.close();
});

/** Files `user`'s request, opens it in bob's queue (filtered to it) and returns "If approved" as drawn. */
async function impactOf(
  user: string,
  details: { role: string; resource?: string; resource_instance?: string },
): Promise<string[]> {
  const filed = await ok(
    server.facts('POST', `/access_requests/default/user/${user}/tenant/acme`, {
      access_request_details: { tenant: 'acme', ...details },
    }),
  );
  const id = (filed as { id: string }).id;
  const source = createReviewSource({ client, user: 'bob', tenant: 'acme' });
  const controller = createReviewController({
    source,
    user: 'bob',
    tenant: 'acme',
    width: 400,
    rows: 60,
    filter: `@${user}`,
  });
  try {
    controller.dispatch({ type: 'start' });
    await controller.idle();
    controller.key(named('return'));
    await controller.idle();
    const lines = buildDetailLines(controller.getState()).map((l) => l.text);
    const at = lines.indexOf('If approved');
    const end = lines.findIndex((l, i) => i > at && !l.startsWith(' '));
    return lines.slice(at + 1, end).map((l) => l.trim());
  } finally {
    await ok(server.facts('PUT', `/access_requests/default/user/${user}/tenant/acme/${id}/cancel`, {}));
  }
}

describe('"If approved" on the whole environment (real server)', () => {
  it('a resource role on a folder: the documents it derives editor on, grouped, with the derivation named', async () => {
    const lines = await impactOf('alice', { role: 'editor', resource: 'folder', resource_instance: 'finance' });
    expect(lines.slice(0, 2)).toEqual([
      '+ folder#editor: folder:read, folder:write on folder:finance',
      '+ document#editor: document:read, document:write on 2 documents (from folder#editor on folder:finance via parent): document:budget, document:plan',
    ]);
    expect(lines.join('\n')).not.toContain('document:loose');
    expect(lines.at(-1)).toMatch(/^\(from the whole environment as read this session/);
  });

  it('a top-level role a user set reads through user.roles: the set rule permission, the rule named; context said, not guessed', async () => {
    const lines = await impactOf('alice', { role: 'manager' });
    expect(lines.slice(0, -1)).toEqual([
      '+ manager tenant-wide in acme (the role itself grants no permission)',
      // Stored amounts decide which documents; document:plan (500) is not among them.
      '+ document:write on 2 documents (set rule: user set managers × resource set small-docs): document:budget, document:loose',
      // A set on `not user.roles contains manager`: the role takes alice out of it.
      '- document:comment on 2 documents (set rule: user set non-managers × resource set small-docs, whose user set no longer takes alice in): document:budget, document:loose',
      '? document:escalate on 3 documents depends on context.urgent (set rule: user set managers × resource set urgent): decided at each check, by the context it passes',
    ]);
  });

  it('a set rule on user.roles and the stored level: the gain only when the stored level qualifies', async () => {
    const rule = '(set rule: user set senior-approvers × resource set small-docs)';
    const alice = await impactOf('alice', { role: 'senior' });
    expect(alice.filter((l) => l.startsWith('+ document:approve'))).toEqual([
      `+ document:approve on 2 documents ${rule}: document:budget, document:loose`,
    ]);
    const dave = await impactOf('dave', { role: 'senior' });
    expect(dave.join('\n')).not.toContain('document:approve');
    expect(dave.slice(0, -1)).toEqual(['+ senior tenant-wide in acme (the role itself grants no permission)']);
  });
});

describe('"If approved" and what the session changes (real server)', () => {
  it('what a group gives already is named; an approval made here is added to the environment read, not read again', async () => {
    await ok(server.facts('POST', '/users', { key: 'erin' }));
    await ok(
      server.schema('POST', '/resources/folder/roles', { key: 'viewer', name: 'viewer', permissions: ['read'] }),
    );
    await ok(
      server.schema('POST', '/groups', {
        group_instance_key: 'finance',
        group_resource_type_key: 'team',
        group_tenant: 'acme',
      }),
    );
    await ok(server.schema('PUT', '/groups/team:finance/users/erin', { tenant: 'acme' }));
    await ok(
      server.schema('POST', '/groups/team:finance/roles', {
        role: 'viewer',
        resource: 'folder',
        resource_instance: 'finance',
        tenant: 'acme',
      }),
    );
    for (let i = 0; i < 2; i++)
      await ok(
        server.facts('POST', '/access_requests/default/user/erin/tenant/acme', {
          access_request_details: { tenant: 'acme', role: 'editor', resource: 'folder', resource_instance: 'finance' },
        }),
      );
    const source = createReviewSource({ client, user: 'bob', tenant: 'acme' });
    let reads = 0;
    const counted = { ...source, readLive: () => (reads++, source.readLive()) };
    const controller = createReviewController({
      source: counted,
      user: 'bob',
      tenant: 'acme',
      width: 400,
      rows: 60,
      filter: '@erin',
    });
    const impact = () => {
      const lines = buildDetailLines(controller.getState()).map((l) => l.text);
      const at = lines.indexOf('If approved');
      return lines
        .slice(
          at + 1,
          lines.findIndex((l, i) => i > at && !l.startsWith(' ')),
        )
        .map((l) => l.trim());
    };
    controller.dispatch({ type: 'start' });
    await controller.idle();
    controller.key(named('return'));
    await controller.idle();
    expect(impact().slice(0, 3)).toEqual([
      '+ folder#editor: folder:write on folder:finance',
      'already held there: folder:read (through folder#viewer via team:finance)',
      '+ document#editor: document:read, document:write on 2 documents (from folder#editor on folder:finance via parent): document:budget, document:plan',
    ]);
    for (const k of ['a', 'return', 'y']) controller.key(k === 'return' ? named('return') : { input: k });
    await controller.idle();
    expect(controller.getState().log.at(-1)?.text).toMatch(/^approved erin's request/);
    controller.key(named('return'));
    await controller.idle();
    expect(impact()[0]).toBe('= erin already holds folder#editor on folder:finance: approving changes nothing');
    expect(reads).toBe(1);
  });
});

describe('"If approved" stays readable (pure, on a built live state)', () => {
  it('instances named up to ten with a count; lines capped with a count', async () => {
    const { emptyLiveState } = await import('../../src/types/live.js');
    const { buildLiveImpact } = await import('../../src/review/impact-live.js');
    const { aRequest } = await import('./builders.js');
    const live = emptyLiveState();
    const editor = (grantedTo: { role: string; on: string; via: string }[] = []) => [
      { key: 'editor', name: 'editor', permissions: ['read'], extends: [], grantedTo },
    ];
    live.resources.set('folder', { key: 'folder', name: 'folder', actions: ['read'], roles: editor() });
    // 25 resource types, each with 12 documents in folder:f, each deriving editor from the folder's.
    for (let t = 0; t < 25; t++) {
      const type = `doc${String(t).padStart(2, '0')}`;
      live.resources.set(type, {
        key: type,
        name: type,
        actions: ['read'],
        roles: editor([{ role: 'editor', on: 'folder', via: 'parent' }]),
      });
      for (let i = 0; i < 12; i++)
        live.resourceInstances.set(`${type}:d${String(i).padStart(2, '0')}`, {
          resource: type,
          key: `d${String(i).padStart(2, '0')}`,
          tenant: 'acme',
          relations: [{ relation: 'parent', subject: 'folder:f' }],
        });
    }
    live.resourceInstances.set('folder:f', { resource: 'folder', key: 'f', tenant: 'acme' });
    live.users.set('alice', { key: 'alice', tenants: ['acme'], roles: [] });
    const impact = buildLiveImpact(
      aRequest({ requester: 'alice', role: 'editor', resource: 'folder', instance: 'f' }),
      live,
    );
    expect(impact.lines).toHaveLength(21);
    expect(impact.lines[0]).toBe('+ folder#editor: folder:read on folder:f');
    expect(impact.lines[1]).toBe(
      '+ doc00#editor: doc00:read on 12 doc00s (from folder#editor on folder:f via parent): ' +
        Array.from({ length: 10 }, (_, i) => `doc00:d${String(i).padStart(2, '0')}`).join(', ') +
        ' … (2 more)',
    );
    expect(impact.lines[20]).toBe('  … and 6 more lines');
  });
});
