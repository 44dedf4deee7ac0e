// When a cluster's renders may conclude that something is missing. Renders run concurrently and finish in any order,
// so a render looking for an object another one may still apply (a substituteFrom ConfigMap, a GitRepository's URL,
// an ArtifactGenerator) waits until every other render of the cluster is done with its own work. Under scope 'graph'
// the leaf tiers are put off; they are built before anyone concludes that what they may hold is missing.

/** A leaf tier's build, put off under scope 'graph'; its directory and components say what its files may hold. */
export type Deferred = (() => Promise<void>) & { dir: string; components: readonly string[] };

/** A render: `release` marks it done with its own work (it may still wait for its children). */
export type Render = (release: () => void) => Promise<void>;

export class RenderScheduler {
  /**
   * Renders doing their own work (building, reading output); a render waiting for its children is not counted.
   * When it drops to zero, renders waiting for a substituteFrom source another render may still produce go on.
   */
  private active = 0;
  private waiters: (() => void)[] = [];
  /** Leaf tiers not built yet (scope 'graph'); `quiesce` builds them before anyone concludes something is missing. */
  private deferred: Deferred[] = [];
  /** Deferred leaf tiers never built: while above zero, the cluster's objects lack theirs. */
  private unbuilt = 0;

  /** Runs one render counted as active until it releases or ends. */
  async tracked(render: Render): Promise<void> {
    this.active++;
    const release = this.releaser();
    try {
      await render(release);
    } finally {
      release();
    }
  }

  /** Puts off a leaf tier's render (scope 'graph'): it runs when a lookup may need its objects, if ever. */
  defer(dir: string, components: readonly string[], render: Render): void {
    this.deferred.push(Object.assign(() => this.tracked(render), { dir, components }));
    this.unbuilt++;
  }

  /** True when every deferred leaf tier was built after all: the cluster's objects are complete. */
  get complete(): boolean {
    return this.unbuilt === 0;
  }

  get hasDeferred(): boolean {
    return this.deferred.length > 0;
  }

  /** Builds the deferred leaves `pick` chooses now, without waiting for the other renders. */
  async buildDeferred(pick: (d: Deferred) => boolean): Promise<void> {
    const build = this.deferred.filter(pick);
    if (build.length === 0) return;
    this.deferred = this.deferred.filter((d) => !build.includes(d));
    this.unbuilt -= build.length;
    await Promise.all(build.map((render) => render()));
  }

  /**
   * Looks again after every other render, deferred ones included, is done; `stillMissing` says when to stop. `pick`:
   * the deferred leaves that may hold what is looked for (all by default); the others stay unbuilt.
   */
  async lookEverywhere(stillMissing: () => boolean, pick: (d: Deferred) => boolean = () => true): Promise<void> {
    if (this.active > 1 || this.deferred.some(pick)) await this.quiesce(pick);
    // Renders that finished while we waited may have deferred more leaves.
    while (stillMissing() && this.deferred.some(pick)) await this.quiesce(pick);
  }

  /**
   * Waits until no other render of this cluster is doing work, so every object it could apply is known; deferred
   * leaf tiers are built first, as they may hold what the caller is looking for.
   */
  private async quiesce(pick: (d: Deferred) => boolean): Promise<void> {
    const chosen = this.deferred.filter(pick);
    this.deferred = this.deferred.filter((d) => !chosen.includes(d));
    const forced = chosen.map((render) => render());
    this.unbuilt -= forced.length;
    const wait = new Promise<void>((resolve) => this.waiters.push(resolve));
    this.active--;
    this.settle();
    await wait;
    this.active++;
    await Promise.all(forced);
  }

  /** Marks the calling render as done with its own work (once); see `active`. */
  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      this.settle();
    };
  }

  private settle(): void {
    if (this.active > 0) return;
    for (const w of this.waiters.splice(0)) w();
  }
}
