// What Flux guarantees about the order of two tiers on a cold start, from dependsOn and nesting alone.
//
// A tier runs only once every dependsOn target is Ready, and a nested Kustomization exists only once its parent
// has applied it, so its parent's dependsOn were Ready before it too. So "Ready before T starts" is the closure of
// T's dependsOn and its ancestors' dependsOn; "applied before T starts" adds the ancestors themselves (a parent's
// CRDs are in its own apply, before the child exists, but a HelmRelease the parent applies is installed later).
// A Ready tier with wait: true is Ready only once what it applied is, so its child Kustomizations are Ready too.
import { ancestors, tierOf, type Graph } from './graph.js';
import { parseKsKey } from '../model/ref.js';

export type Verdict = 'ordered' | 'race' | 'deadlock';

export class Order {
  private readyMemo = new Map<string, Set<string>>();
  private ancestorsMemo = new Map<string, string[]>();

  /** `unexpanded`: tiers whose objects are not known (another source, a failed build). */
  constructor(private readonly graph: Graph, private readonly unexpanded: ReadonlySet<string> = new Set()) {}

  /**
   * Unexpanded tiers that run before `key`: Ready ones, applied ones, and what those apply. One of them may install
   * what `key` needs, so "nothing installs it" cannot be said.
   */
  unexpandedBefore(key: string): string[] {
    if (this.unexpanded.size === 0) return [];
    // What a Ready tier applied has run too (with wait, it is Ready); an ancestor's other children have not.
    const before = new Set(this.ready(key));
    const stack = [...before];
    while (stack.length > 0) {
      for (const c of this.graph.children.get(stack.pop()!) ?? []) {
        if (c !== key && !before.has(c)) {
          before.add(c);
          stack.push(c);
        }
      }
    }
    for (const a of this.applied(key)) before.add(a);
    return [...before].filter((k) => this.unexpanded.has(k)).sort();
  }

  ancestors(key: string): string[] {
    let a = this.ancestorsMemo.get(key);
    if (!a) this.ancestorsMemo.set(key, (a = ancestors(this.graph, key)));
    return a;
  }

  /** Tiers that are Ready before `key` is first applied: dependsOn of it and of its ancestors, transitively. */
  ready(key: string): Set<string> {
    const memo = this.readyMemo.get(key);
    if (memo) return memo;
    const seen = new Set<string>();
    const stack = [key, ...this.ancestors(key)].flatMap((k) => this.graph.deps.get(k) ?? []);
    while (stack.length > 0) {
      const k = stack.pop()!;
      if (seen.has(k)) continue;
      seen.add(k);
      for (const a of [k, ...this.ancestors(k)]) stack.push(...(this.graph.deps.get(a) ?? []));
      // A Ready tier with wait: true waited for what it applied, its child Kustomizations included.
      if (tierOf(this.graph, k)?.wait) stack.push(...(this.graph.children.get(k) ?? []).filter((c) => c !== key));
    }
    this.readyMemo.set(key, seen);
    return seen;
  }

  /** Tiers whose apply has completed before `key` is first applied: the Ready ones and every ancestor of them. */
  applied(key: string): Set<string> {
    const out = new Set(this.ready(key));
    for (const k of [key, ...this.ready(key)]) for (const a of this.ancestors(k)) out.add(a);
    out.delete(key);
    return out;
  }

  /** True when `later` can only start after `tier` is Ready or has applied it: a failing `tier` blocks it forever. */
  blockedBy(later: string, tier: string): boolean {
    return later === tier || this.ready(later).has(tier) || this.ancestors(later).includes(tier);
  }

  /**
   * How a resource in `tier` relates to an installer in `installer` whose output is needed at `tier`'s dry-run:
   * `applied` when applying the installer's tier is enough (a CRD in git), `ready` when it must be Ready (a chart).
   */
  verdict(tier: string, installer: string | null, need: 'applied' | 'ready'): Verdict {
    if (installer === null) return need === 'applied' ? 'ordered' : 'race';
    if (need === 'applied' && installer === tier) return 'ordered';
    if ((need === 'applied' ? this.applied(tier) : this.ready(tier)).has(installer)) return 'ordered';
    return this.blockedBy(installer, tier) ? 'deadlock' : 'race';
  }
}

/** The best of several installers: one that is ordered wins; a race still converges; only all-deadlock is one. */
export function best(verdicts: Verdict[]): Verdict {
  if (verdicts.includes('ordered')) return 'ordered';
  if (verdicts.includes('race')) return 'race';
  return 'deadlock';
}

/** `dependsOn: [{name: x}]`, with the namespace when it differs from the dependent's. */
export function dependsOnEntry(target: string, dependent: string): string {
  const t = parseKsKey(target);
  return `dependsOn: [{name: ${t.name}${t.namespace === parseKsKey(dependent).namespace ? '' : `, namespace: ${t.namespace}`}}]`;
}
