// A RunTarget for unit tests: the example's two Kustomizations (the root sync and apps) on the fake cluster, with
// the context guard passing, nothing to install and nothing to check.

import type { RunTarget } from '../../src/runner/run-target.js';
import { cluster, ks, plan } from '../helpers/model.js';
import type { FakeCluster } from './fake-cluster.js';

export function runTarget(flux: FakeCluster, o: Partial<RunTarget> = {}): RunTarget {
  return {
    name: 'dev',
    ctx: plan(cluster('dev', [ks('flux-system', { repoPath: 'clusters/dev' }), ks('apps')])),
    client: flux,
    guard: { cluster: 'dev', expectedContext: 'fake', actualContext: 'fake', actualServer: flux.server, pinned: true },
    timeouts: { defaultMs: 5000, tiers: {}, overallMs: Infinity },
    resettable: true,
    problems: [],
    fallback: { files: [], objects: [], crds: [] },
    crdKnowledge: { runtimeCrds: [], groupsInGit: new Set(), externalCrds: [] },
    bootstrap: null,
    installsFlux: false,
    ...o,
  };
}
