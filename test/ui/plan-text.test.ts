import { describe, expect, it } from 'vitest';
import { refKey } from '../../src/model/ref.js';
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
    expect(Object.fromEntries(p.kustomizations.map((k) => [k.key, refKey(k.source)]))).toEqual({
      'flux-system/apps': 'GitRepository/flux-system/flux-system',
      'flux-system/infra': 'ExternalArtifact/flux-system/infrastructure',
      'apps/tenant': 'GitRepository/flux-system/team',
    });
    const text = renderPlanText([p], undefined, { wide: true });
    expect(text).toMatch(/flux-system\/infra\s+\.\/controllers \(in ExternalArtifact\/infrastructure\)\s/);
    // Another namespace's source keeps its namespace; the cluster's own repository gets no note.
    expect(text).toMatch(/apps\/tenant\s+\.\/staging \(in GitRepository\/flux-system\/team\)\s/);
    expect(text).toMatch(/flux-system\/apps\s+\.\/apps\s+flux-system\/infra/);
  });

  it('with no GitRepository at all, every path says which artifact it is in', () => {
    const p = plan(cluster('dev', [ks('infra', { path: './controllers', sourceRef: artifact('infrastructure') }), ks('apps', { path: './staging', sourceRef: artifact('apps') })])).plan;
    const text = renderPlanText([p], undefined, { wide: true });
    expect(text).toContain('./controllers (in ExternalArtifact/infrastructure)');
    // Without -o wide there is no PATH column.
    expect(renderPlanText([p])).not.toContain('./controllers');
    expect(text).toContain('./staging (in ExternalArtifact/apps)');
  });
});

describe('plan text: the order of a nested graph, and a table that fits', () => {
  // The root applies one tier, apps; apps applies db and web (web after db): TIER_ORDER is (apps) alone.
  const nested = () => plan(cluster('dev', [
    ks('flux-system', { path: './clusters/dev', repoPath: 'clusters/dev' }),
    ks('apps', { path: './apps', parent: 'flux-system/flux-system' }),
    ks('db', { path: './apps/db', parent: 'flux-system/apps' }),
    ks('web', { path: './apps/web', parent: 'flux-system/apps', dependsOn: ['db', 'a-very-long-dependency-name-that-goes-on-and-on'] }),
    ks('a-very-long-dependency-name-that-goes-on-and-on', { path: './x', parent: 'flux-system/apps' }),
  ])).plan;

  it('leads with every Kustomization that must become Ready, by level, before TIER_ORDER', () => {
    const text = renderPlanText([nested()]);
    const order = text.slice(text.indexOf('READY ORDER'), text.indexOf('TIER_ORDER='));
    expect(order).toMatch(/^READY ORDER: 4 Kustomizations, level by level\n {3}0 {2}a-very-long-dependency-name-that-goes-on-and-on apps db\n {3}1 {2}web\n/);
    expect(text).toContain('TIER_ORDER=(apps)');
  });

  it('a flat graph has no READY ORDER: TIER_ORDER is the whole order', () => {
    const flat = plan(cluster('dev', [ks('infra'), ks('apps', { dependsOn: ['infra'] })])).plan;
    expect(renderPlanText([flat])).not.toContain('READY ORDER');
  });

  it('on a terminal, DEPENDS ON (last) is cut to its width; -o wide cuts nothing', () => {
    const cut = renderPlanText([nested()], undefined, { columns: 100 });
    expect(Math.max(...cut.split('\n').map((l) => l.length))).toBeLessThanOrEqual(100);
    expect(cut).toMatch(/^1 +flux-system\/web +flux-system\/apps +flux-system\/\S*…$/m);
    expect(cut).not.toContain("goes-on-and-on\n");
    const wide = renderPlanText([nested()], undefined, { wide: true, columns: 100 });
    expect(wide).toContain('flux-system/db, flux-system/a-very-long-dependency-name-that-goes-on-and-on');
    expect(wide).toMatch(/^LEVEL +KUSTOMIZATION +PATH +APPLIED BY +DEPENDS ON$/m);
  });
});
