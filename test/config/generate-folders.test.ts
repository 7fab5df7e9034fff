/**
 * The bench generator's opt-in folder tree (bench/generate.ts `folders`, the rebac bench): it validates,
 * has the shape it promises, leaves the rest of the environment as it is without the option, and gives
 * access through role derivations over the `parent` tuples.
 */
import { describe, expect, it } from 'vitest';
import { generateEnvironment, toYaml } from '../../bench/generate.js';
import { validateSources } from '../../src/config/index.js';
import { buildAccessGraph } from '../../src/access/index.js';
import { factsFromState } from '../../src/access/from-state.js';

const BASE = { users: 300, groups: 40, maxDepth: 3, instances: 60, memberships: 600, tenants: 3, seed: 5 };

describe('bench generator: folders', () => {
  const flat = generateEnvironment(BASE);
  const tree = generateEnvironment({ ...BASE, folders: { documents: 90, depth: 4 } });

  it('validates with zero errors', () => {
    const r = validateSources([{ file: 'gen.yaml', text: toYaml(tree as never) }]);
    expect(r.errors).toEqual([]);
  });

  it('adds folders depth levels deep per tenant and puts every document in a folder of its tenant', () => {
    const instances = tree.resource_instances;
    const folders = Object.keys(instances).filter((id) => id.startsWith('folder:'));
    const files = Object.keys(instances).filter((id) => id.startsWith('file:'));
    expect(files).toHaveLength(90);
    expect(folders).toHaveLength(3 * (2 + 6 + 18 + 54));
    const depth = (id: string): number =>
      instances[id].relations?.parent ? 1 + depth(instances[id].relations!.parent) : 1;
    expect(Math.max(...folders.map(depth))).toBe(4);
    for (const f of files) {
      const parent = instances[f].relations?.parent;
      expect(parent?.startsWith('folder:')).toBe(true);
      expect(instances[parent!].tenant).toBe(instances[f].tenant);
    }
  });

  it('changes nothing else: without its additions the environment is the one without the option', () => {
    const stripped = structuredClone(tree);
    delete stripped.resources.folder;
    delete stripped.resources.file;
    for (const id of Object.keys(stripped.resource_instances))
      if (/^(folder|file):/.test(id)) delete stripped.resource_instances[id];
    for (const g of Object.values(stripped.groups)) {
      g.roles = g.roles?.filter((r) => !r.on.startsWith('folder:'));
      if (!g.roles?.length) delete g.roles;
    }
    for (const u of Object.values(stripped.users)) {
      u.roles = u.roles?.filter((r) => !('on' in r && r.on.startsWith('folder:')));
      if (!u.roles?.length) delete u.roles;
    }
    expect(toYaml(stripped as never)).toBe(toYaml(flat as never));
  });

  it('gives users roles on files only through derivations down the folder tree', () => {
    const r = validateSources([{ file: 'gen.yaml', text: toYaml(tree as never) }]);
    const graph = buildAccessGraph(factsFromState(r.desired!));
    let derived = 0;
    for (const g of graph.effectiveGrants()) {
      // Tenant-wide roles (the generated admins) hold on every instance; the file roles only by derivation.
      if (!g.instance.startsWith('file:') || !g.role.startsWith('file#')) continue;
      expect(g.paths.every((p) => p.kind === 'derived')).toBe(true);
      derived++;
    }
    expect(derived).toBeGreaterThan(0);
  });
});
