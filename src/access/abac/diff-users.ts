/**
 * The set-rule diff's loop over users for one permission and one group of instances (diff.ts): per
 * user, the permission's outcome on every instance of the group on each side, as words of bits (yes, or
 * depending on the context), their differences attributed to the first rule granting them. A class of
 * its own so that the engine optimises the per-user step as the small function it is. Pure.
 */
import { dependsOnContext, type AbacIndex, type AbacRule, type Status } from './graph.js';
import { or, type Found, type Prepared } from './diff-sides.js';

export interface GroupInput {
  permission: string;
  users: readonly string[];
  instances: readonly string[];
  /** Per side: the graph, where the group's instances exist on that side. */
  graphs: readonly (AbacIndex | undefined)[];
  /** Per side: the permission's rules, ready (diff-sides.ts). */
  prepared: readonly (Prepared[] | undefined)[];
  /** Per side: whether each user has a role in the group's tenant there. */
  members: readonly Uint8Array[];
  /** Some rule granting the permission reads across sides (on either side). */
  cross: boolean;
  /** Those rules changed: every pair is decided again. */
  crossEverywhere: boolean;
  /** Users whose values those rules read changed (when not `crossEverywhere`). */
  changedUsers: Uint8Array | undefined;
  /** Instances whose values those rules read changed; `everything` when all must be decided. */
  changedInstances: Uint32Array;
  everything: Uint32Array;
  /** Users who moved in no set: visited on `narrowWords` only (undefined: every user on every word). */
  narrow: Uint8Array | undefined;
  narrowWords: Int32Array;
  /** Whether a role grants the permission on the instance, on either side, for the user (by index). */
  roleCheck(u: number): (permission: string, instance: string) => boolean;
  /** Where gains and losses go, by sign and rule. */
  found: Map<string, Found>;
  /** A pair a rule decides only with the context. */
  undecided(rule: AbacRule, user: string, instance: string): void;
}

export class GroupUsers {
  private readonly words: number;
  private readonly allWords: Int32Array;
  private readonly rows: { yes: Uint32Array; maybe: Uint32Array }[];
  private readonly diffBits: Uint32Array;
  private readonly crossBits: (Uint32Array | undefined)[][];
  private readonly crossMaybe: Uint32Array[];

  constructor(private readonly g: GroupInput) {
    const words = (this.words = (g.instances.length + 31) >>> 5);
    this.allWords = Int32Array.from({ length: words }, (_, w) => w);
    this.rows = [0, 1].map(() => ({ yes: new Uint32Array(words), maybe: new Uint32Array(words) }));
    this.diffBits = new Uint32Array(words);
    this.crossBits = g.prepared.map((list) => (list ?? []).map((p) => (p.cross ? new Uint32Array(words) : undefined)));
    this.crossMaybe = [new Uint32Array(words), new Uint32Array(words)];
  }

  /** One user's gains and losses on the group's instances, into `found` (and `undecided`). */
  visit(u: number): void {
    const g = this.g;
    const ws = g.narrow && g.narrow[u] === 0 ? g.narrowWords : this.allWords;
    if (ws.length === 0) return;
    const { rows, diffBits, words } = this;
    if (ws !== this.allWords) diffBits.fill(0);
    const any = this.rowsOf(u, ws);
    if (!any && !g.cross) return;
    const userChanged = g.cross && (g.crossEverywhere || g.changedUsers![u] === 1);
    let nonzero = false;
    for (let x = 0; x < ws.length; x++) {
      const w = ws[x];
      const cross = !g.cross ? 0 : userChanged ? g.everything[w] : g.changedInstances[w];
      diffBits[w] = (rows[0].yes[w] ^ rows[1].yes[w]) | (rows[0].maybe[w] ^ rows[1].maybe[w]) | cross;
      if (diffBits[w] !== 0) nonzero = true;
    }
    if (!nonzero) return;
    if (g.cross) this.decideCross(u);
    if (!this.gainsAndLosses(u)) return;
    // Pairs depending on the context, one by one.
    for (let w = 0; w < words; w++) {
      for (let bits = diffBits[w]; bits !== 0; bits &= bits - 1)
        this.onePair(u, w, (w << 5) | (31 - Math.clz32(bits & -bits)));
    }
  }

  /** The rules read per side, OR-ed into each side's row on the words visited; whether any holds the user. */
  private rowsOf(u: number, ws: Int32Array): boolean {
    let any = false;
    const nw = ws.length;
    for (let k = 0; k < 2; k++) {
      const row = this.rows[k];
      row.yes.fill(0);
      row.maybe.fill(0);
      const list = this.g.prepared[k];
      if (!list) continue;
      const member = this.g.members[k][u];
      for (let j = 0; j < list.length; j++) {
        const p = list[j];
        if (p.cross) continue;
        const su = p.users[u];
        if (su === 0) continue;
        const { yes, maybe } = p.sets[member];
        if (su === 1) {
          for (let x = 0; x < nw; x++) {
            const w = ws[x];
            row.yes[w] |= yes[w];
            row.maybe[w] |= maybe[w];
          }
        } else {
          for (let x = 0; x < nw; x++) {
            const w = ws[x];
            row.maybe[w] |= yes[w] | maybe[w];
          }
        }
        any = true;
      }
    }
    return any;
  }

  /**
   * Rules read per pair: decided only where something they read changed, or where the rules read per
   * side differ (a pair one keeps through the other is no change). Elsewhere both sides agree.
   */
  private decideCross(u: number): void {
    const { rows, diffBits, crossBits, crossMaybe, words } = this;
    const prepared = this.g.prepared;
    for (let k = 0; k < 2; k++) {
      const bs = crossBits[k];
      for (let j = 0; j < bs.length; j++) bs[j]?.fill(0);
      crossMaybe[k].fill(0);
    }
    for (let w = 0; w < words; w++) {
      if (diffBits[w] === 0) continue;
      for (let bits = diffBits[w]; bits !== 0; bits &= bits - 1) {
        const bit = bits & -bits;
        const ix = (w << 5) | (31 - Math.clz32(bit));
        for (let k = 0; k < 2; k++) {
          const list = prepared[k];
          if (!list) continue;
          for (let j = 0; j < list.length; j++) {
            const p = list[j];
            if (!p.cross || p.users?.[u] === 0) continue;
            const st = p.status(u, ix);
            if (st === 1) crossBits[k][j]![w] |= bit;
            else if (st !== 0) crossMaybe[k][w] |= bit;
          }
        }
      }
      for (let k = 0; k < 2; k++) {
        const bs = crossBits[k];
        for (let j = 0; j < bs.length; j++) {
          const b = bs[j];
          if (b) rows[k].yes[w] |= b[w];
        }
        rows[k].maybe[w] |= crossMaybe[k][w];
      }
      diffBits[w] &= (rows[0].yes[w] ^ rows[1].yes[w]) | (rows[0].maybe[w] ^ rows[1].maybe[w]);
    }
  }

  /**
   * Gains and losses as words, roles masked out, each bit given to the first rule granting it; what is
   * left in `diffBits` depends on the context. Returns whether anything is left.
   */
  private gainsAndLosses(u: number): boolean {
    const g = this.g;
    const { diffBits, crossBits, words } = this;
    const [r0, r1] = this.rows;
    let slow = false;
    for (let w = 0; w < words; w++) {
      const d = diffBits[w];
      if (d === 0) continue;
      const gain = d & r1.yes[w] & ~r0.yes[w] & ~r0.maybe[w];
      const loss = d & r0.yes[w] & ~r1.yes[w] & ~r1.maybe[w];
      if ((d & ~(gain | loss)) !== 0) slow = true;
      if ((gain | loss) === 0) continue;
      let roles = 0;
      const rolesGrant = g.roleCheck(u);
      for (let b = gain | loss; b !== 0; b &= b - 1) {
        const bit = b & -b;
        if (rolesGrant(g.permission, g.instances[(w << 5) | (31 - Math.clz32(bit))])) roles |= bit;
      }
      for (let k2 = 1; k2 >= 0; k2--) {
        // Side 1 holds the gains, side 0 the losses.
        let left = (k2 === 1 ? gain : loss) & ~roles;
        if (left === 0) continue;
        const sign = k2 === 1 ? '+' : '-';
        const member = g.members[k2][u];
        const list = g.prepared[k2]!;
        for (let j = 0; j < list.length && left !== 0; j++) {
          const p = list[j];
          const mine = left & (p.cross ? crossBits[k2][j]![w] : p.users[u] === 1 ? p.sets[member].yes[w] : 0);
          if (mine === 0) continue;
          left &= ~mine;
          const got = this.listOf(p, sign, u);
          for (let b = mine; b !== 0; b &= b - 1) got.push(g.instances[(w << 5) | (31 - Math.clz32(b & -b))]);
        }
      }
      diffBits[w] = d & ~(gain | loss);
    }
    return slow;
  }

  /** A rule on one side gives one sign: its entry, and the user's list in it, are kept on it. */
  private listOf(p: Prepared, sign: '+' | '-', u: number): string[] {
    if (p.listUser !== u) {
      if (!p.entry) {
        const foundKey = `${sign}\u0000${p.r.via.rule}`;
        let entry = this.g.found.get(foundKey);
        if (!entry) this.g.found.set(foundKey, (entry = { sign, via: p.r.via, byUser: new Map<string, string[]>() }));
        p.entry = entry;
      }
      const user = this.g.users[u];
      let got = p.entry.byUser.get(user);
      if (!got) p.entry.byUser.set(user, (got = []));
      p.list = got;
      p.listUser = u;
    }
    return p.list!;
  }

  /** The permission's outcome on one pair on one side: the row's bit, or else the rules read per pair (3 reads as 2: depends). */
  private statusOf(side: number, w: number, k: number, u: number): Status {
    const bit = 1 << (k & 31);
    const row = this.rows[side];
    let s: Status = row.yes[w] & bit ? 1 : row.maybe[w] & bit ? 2 : 0;
    const list = this.g.prepared[side];
    if (s !== 1 && list) {
      for (const p of list) {
        // Only where the rule's user set (read per user) holds the user.
        if (!p.cross || p.users?.[u] === 0) continue;
        s = or(s, p.status(u, k));
        if (s === 1) break;
      }
    }
    return s === 3 ? 2 : s;
  }

  /** A pair whose outcome depends on the context on some side, or that no word decided. */
  private onePair(u: number, w: number, k: number): void {
    const g = this.g;
    const user = g.users[u];
    const i = g.instances[k];
    const s0 = this.statusOf(0, w, k, u);
    const s1 = this.statusOf(1, w, k, u);
    if (s0 === s1) return;
    if (s0 === 2 || s1 === 2) {
      for (let side = 0; side < 2; side++) {
        const graph = g.graphs[side];
        for (const p of g.prepared[side] ?? [])
          if (dependsOnContext(graph!.ruleStatus(p.r, user, i))) g.undecided(p.r, user, i);
      }
      return;
    }
    if (g.roleCheck(u)(g.permission, i)) return;
    const sign = s1 === 1 ? '+' : '-';
    const k2 = sign === '+' ? 1 : 0;
    const member = g.members[k2][u];
    const by = g.prepared[k2]!.find((p) =>
      p.cross ? p.status(u, k) === 1 : p.users[u] === 1 && (p.sets[member].yes[w] & (1 << (k & 31))) !== 0,
    )!;
    const foundKey = `${sign}\u0000${by.r.via.rule}`;
    let entry = g.found.get(foundKey);
    if (!entry) g.found.set(foundKey, (entry = { sign, via: by.r.via, byUser: new Map<string, string[]>() }));
    const list = entry.byUser.get(user);
    if (list) list.push(i);
    else entry.byUser.set(user, [i]);
  }
}
