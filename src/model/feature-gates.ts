// A Flux controller's feature gates, as its `--feature-gates=Name=true,Other=false` argument sets them (component-base
// featuregate: comma-separated, the last setting of a name wins, later arguments over earlier ones). Where standup
// read one, so what it assumed is always said.

/** One gate of one controller, and where its value was read (or that it is the default, assumed). */
export interface GateSetting {
  on: boolean;
  /** `the cluster's Deployment flux-system/helm-controller`, `clusters/x/flux-system/gotk-patches.yaml`, or null: the default, assumed. */
  from: string | null;
}

/** What a gate gives in one container's args: true/false, or null when the args do not set it. */
export function gateInArgs(args: readonly unknown[], gate: string): boolean | null {
  let found: boolean | null = null;
  for (const a of args) {
    if (typeof a !== 'string') continue;
    const m = /^--feature-gates[= ](.*)$/.exec(a.trim());
    if (!m) continue;
    for (const kv of m[1]!.split(',')) {
      const [k, v] = kv.split('=').map((x) => x.trim());
      if (k === gate && (v?.toLowerCase() === 'true' || v?.toLowerCase() === 'false')) found = v.toLowerCase() === 'true';
    }
  }
  return found;
}

/** The gate's value in text (a patch, a container list as JSON): the last `Gate=true|false` in it, or null. */
export function gateInText(text: string, gate: string): boolean | null {
  let found: boolean | null = null;
  for (const m of text.matchAll(new RegExp(`\\b${gate}=(true|false)\\b`, 'gi'))) found = m[1]!.toLowerCase() === 'true';
  return found;
}

/** The cluster's word first (what runs), then the repository's, else the controller's default, said as assumed. */
export function resolveGate(live: GateSetting | null, repo: GateSetting | null, defaultOn: boolean): GateSetting {
  return live ?? repo ?? { on: defaultOn, from: null };
}

/** `AdditiveCELDependencyCheck on (--feature-gates in ...)`, or `off (assumed: its default; ...)`. */
export function describeGate(gate: string, controller: string, s: GateSetting): string {
  return s.from
    ? `${controller}'s ${gate} is ${s.on ? 'on' : 'off'} (--feature-gates in ${s.from})`
    : `${controller}'s ${gate} is taken to be ${s.on ? 'on' : 'off'}, its default: neither the cluster's ${controller} Deployment nor the repository sets it`;
}
