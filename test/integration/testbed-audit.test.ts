// "Writes nothing", from the API server's own audit log: a second `standup crds` makes zero mutating requests. And
// the log holds only what tests and standup ask (user admin), not the testbed's own components: what benchmarks
// count as standup's API requests.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { COMPONENT_USERS, describeAudit, readAudit } from '../testbed/audit.js';
import { connect } from '../testbed/harness.js';
import { deleteCrd } from '../testbed/operator.js';
import { standup } from './cli.js';
import { kube } from './kube.js';
import { pollUntil } from '../testbed/wait.js';

const tb = connect(inject('testbed'));
const k = kube(tb.kubeConfig());
const CRDS = ['storageprofiles.cdi.kubevirt.io', 'datavolumes.cdi.kubevirt.io'];
const crds = () => standup(['crds', '--cluster', 'dev', '--kubeconfig', tb.kubeconfigPath]);
const realWrites = (since: Date, until: Date) => readAudit(tb.auditLog, { since, until, mutating: true }).filter((e) => !e.requestURI.includes('dryRun=All'));

async function removeCrds() {
  for (const c of CRDS) await deleteCrd(tb.kubeConfig(), c);
  await pollUntil('the runtime CRDs to be gone', async () => {
    const left = (await Promise.all(CRDS.map((c) => k.crd(c)))).filter((c) => c !== null);
    if (left.length === 0) return true;
    throw new Error(left.map((c) => `${c!.metadata?.name} deletionTimestamp=${c!.metadata?.deletionTimestamp} finalizers=${c!.metadata?.finalizers} ${JSON.stringify(c!.status?.conditions?.map((x) => `${x.type}=${x.status} ${x.message}`))}`).join('; '));
  }, { timeoutMs: 60_000, intervalMs: 500 });
}

beforeAll(removeCrds);
afterAll(removeCrds);

describe('audit log', () => {
  it('crds twice: the first run writes both CRDs, the second makes zero mutating requests', async () => {
    const t0 = new Date();
    const first = await crds();
    const t1 = new Date();
    expect(first.code, first.stderr).toBe(0);
    expect(realWrites(t0, t1).map(describeAudit).sort()).toEqual(CRDS.map((c) => `patch customresourcedefinitions ${c} -> 201`).sort());

    const t2 = new Date();
    const second = await crds();
    const t3 = new Date();
    expect(second.code, second.stderr).toBe(0);
    // It did talk to the API server (reads, dry-runs), as user admin, and wrote nothing.
    expect(readAudit(tb.auditLog, { since: t2, until: t3 }).length).toBeGreaterThan(0);
    expect(realWrites(t2, t3).map(describeAudit)).toEqual([]);
  });

  it('records no request of the testbed\'s own components, only the admin user\'s', () => {
    for (const user of COMPONENT_USERS) expect(readAudit(tb.auditLog, { user })).toEqual([]);
    expect(readAudit(tb.auditLog).length).toBeGreaterThan(0);
  });
});
