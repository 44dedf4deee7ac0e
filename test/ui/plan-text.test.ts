import { describe, expect, it } from 'vitest';
import { renderPlanText } from '../../src/ui/plan-text.js';
import { cluster, ks, plan } from '../helpers/model.js';

const artifact = (name: string) => ({ kind: 'ExternalArtifact', name, namespace: 'flux-system' });

describe('plan text: where a path lives', () => {
  it("names the source of a path that is not the cluster's own repository", () => {
    const p = plan(
      cluster('dev', [
        ks('infra', { path: './controllers', sourceRef: artifact('infrastructure') }),
        ks('apps', { dependsOn: ['infra'], path: './apps' }),
        ks('tenant', { namespace: 'apps', path: './staging', sourceRef: { kind: 'GitRepository', name: 'team', namespace: 'flux-system' } }),
      ]),
    ).plan;
    expect(Object.fromEntries(p.kustomizations.map((k) => [k.key, k.source]))).toEqual({
      'flux-system/apps': 'GitRepository/flux-system/flux-system',
      'flux-system/infra': 'ExternalArtifact/flux-system/infrastructure',
      'apps/tenant': 'GitRepository/flux-system/team',
    });
    const text = renderPlanText([p]);
    expect(text).toMatch(/flux-system\/infra\s+\.\/controllers \(in ExternalArtifact\/infrastructure\)\s/);
    // Another namespace's source keeps its namespace; the cluster's own repository gets no note.
    expect(text).toMatch(/apps\/tenant\s+\.\/staging \(in GitRepository\/flux-system\/team\)\s/);
    expect(text).toMatch(/flux-system\/apps\s+\.\/apps\s+flux-system\/infra/);
  });

  it('with no GitRepository at all, every path says which artifact it is in', () => {
    const p = plan(cluster('dev', [ks('infra', { path: './controllers', sourceRef: artifact('infrastructure') }), ks('apps', { path: './staging', sourceRef: artifact('apps') })])).plan;
    const text = renderPlanText([p]);
    expect(text).toContain('./controllers (in ExternalArtifact/infrastructure)');
    expect(text).toContain('./staging (in ExternalArtifact/apps)');
  });
});
