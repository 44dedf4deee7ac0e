import { describe, expect, it } from 'vitest';
import type { LiveSource } from '../../src/status/conditions.js';
import { sourceReadiness } from '../../src/status/source.js';

const REV = 'main@sha1:5c6a8ee0b7d6e1c2a3f4b5c6d7e8f9a0b1c2d3e4';
const git = (status: LiveSource['status'], gen = 1): LiveSource => ({ kind: 'GitRepository', metadata: { name: 'flux-system', namespace: 'flux-system', generation: gen }, status });

describe('sourceReadiness', () => {
  it.each([
    ['a stored artifact is ready at its revision', git({ observedGeneration: 1, artifact: { revision: REV }, conditions: [{ type: 'Ready', status: 'True', reason: 'Succeeded', message: `stored artifact for revision '${REV}'` }] }), 'ready', REV, true],
    ['a first fetch in progress is progressing', git({ observedGeneration: -1, conditions: [{ type: 'Ready', status: 'Unknown', reason: 'Progressing', message: 'reconciliation in progress' }] }), 'progressing', null, false],
    [
      'a failed fetch that still has an old artifact is failed but keeps feeding Kustomizations',
      git({ observedGeneration: 1, artifact: { revision: REV }, conditions: [{ type: 'Ready', status: 'False', reason: 'GitOperationFailed', message: "failed to checkout and determine revision: unable to clone 'http://127.0.0.1:1/repo.git': connection refused" }, { type: 'Reconciling', status: 'True', reason: 'ProgressingWithRetry' }] }),
      'failed',
      REV,
      true,
    ],
    ['no status yet is progressing', git(undefined), 'progressing', null, false],
    ['Ready for an older generation is progressing', git({ observedGeneration: 1, artifact: { revision: REV }, conditions: [{ type: 'Ready', status: 'True', reason: 'Succeeded' }] }, 2), 'progressing', REV, true],
    ['absent is not-found', undefined, 'not-found', null, false],
  ] as const)('%s', (_n, src, state, revision, hasArtifact) => {
    const r = sourceReadiness(src);
    expect([r.state, r.revision, r.hasArtifact]).toEqual([state, revision, hasArtifact]);
  });
});
