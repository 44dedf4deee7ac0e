// npm run demo: the main job on the bundled example, with no cluster of your own: a real cold start.
// Installs the node's host packages if missing (containerd, runc, CNI plugins, iptables, conntrack: Debian's) and
// builds the testbed if needed (kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kubelet, kube-proxy,
// CoreDNS and the Flux controllers, from Go modules). Starts a bare cluster with a real node (no Flux), serves
// examples/homelab from a git server the node's pods reach, and runs `standup up --repo examples/homelab --cluster dev` with the live
// UI: Flux installed from the repository's gotk-components.yaml (its controllers start as pods), the sync, then every
// tier (pods start, readiness probes pass, tiers turn Ready in dependency order). Shows the pods and `standup
// status`, and stops everything. `npm run demo -- fleet`: the same for examples/fleet, whose Flux is a FluxInstance
// that flux-operator installs.
import path from 'node:path';
import { execa } from 'execa';
import { start } from '../test/testbed/harness.js';
import { sopsRepo } from '../test/testbed/sops.js';
import { serveRepo } from '../test/integration/serve.js';

const root = path.resolve(import.meta.dirname, '..');
const say = (s: string) => process.stderr.write(`\u001b[1m${s}\u001b[0m\n`);

// Idempotent: the first run builds (see test/testbed/README.md for how long), later runs cost nothing.
say('» Node packages (containerd, runc, CNI plugins, iptables, conntrack; from Debian when missing)');
await execa('bash', [path.join(root, 'scripts/testbed-deps.sh')], { stdio: 'inherit' });
say('» Testbed binaries (control plane, kubelet, kube-proxy, Flux controllers; built once into ~/.cache/standup-testbed)');
await execa('bash', [path.join(root, 'scripts/build-testbed.sh')], { stdio: 'inherit' });
say('» Starting a bare cluster: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, a node (containerd, kubelet, kube-proxy), CoreDNS; no Flux yet');
if (process.argv[2] === 'fleet') await fleet();
const tb = await start({ flux: 'pods' });
const cluster = 'dev';
// The example's bootstrap secret is SOPS-encrypted for its owner's age key, which is not in the repository: the demo
// plays the owner with a key of its own (a copy of examples/homelab, the secret encrypted for that key).
const sops = await sopsRepo(tb.binDir);
let code = 1;
try {
  say(`  ready in ${(tb.timings.total! / 1000).toFixed(1)}s at ${tb.server}; node ${tb.node?.name} (${tb.node?.nodeIp}), pods in ${tb.node?.podCidr}`);
  // Served as its owner would push it: the root sync in it names the loopback URL it is served from.
  const { url, sha } = await serveRepo(tb.git, 'homelab', sops.repo, `${tb.clusterGitBaseUrl}/homelab.git`);
  say(`» Serving examples/homelab at ${url} (main@sha1:${sha.slice(0, 8)})`);
  const standup = (...args: string[]) =>
    execa('node', [path.join(root, 'bin/standup.js'), ...args, '--repo', sops.repo, '--cluster', cluster, '--kubeconfig', tb.kubeconfigPath], { stdio: 'inherit', reject: false, cwd: root, env: sops.env });
  say(`» standup plan --repo examples/homelab --cluster ${cluster}`);
  await execa('node', [path.join(root, 'bin/standup.js'), 'plan', '--repo', sops.repo, '--cluster', cluster], { stdio: 'inherit', cwd: root });
  say(`» standup up --repo examples/homelab --cluster ${cluster} --source-url ${url}   (installs Flux from clusters/dev/flux-system/gotk-components.yaml)`);
  code = (await standup('up', '--source-url', url)).exitCode ?? 1;
  say('» kubectl get pods -A (every one started on the node, Ready by its readiness probe)');
  await execa('kubectl', ['--kubeconfig', tb.kubeconfigPath, 'get', 'pods', '-A', '-o', 'wide'], { stdio: 'inherit', reject: false });
  say(`» standup status --repo examples/homelab --cluster ${cluster}`);
  await standup('status');
} finally {
  say('» Stopping the testbed');
  sops.cleanup();
  await tb.stop();
}
process.exit(code);

/**
 * `npm run demo -- fleet`: the FluxInstance example. flux-operator (built from its Go module, its image imported into
 * the node with the Flux distribution manifests in /data) is installed from examples/fleet/bootstrap, the FluxInstance
 * installs the Flux controllers as pods and the root sync, and standup drives the tiers and the ResourceSet.
 */
async function fleet(): Promise<never> {
  say('» Starting a bare cluster with a node, Flux\'s and flux-operator\'s images imported; no Flux yet');
  const tb = await start({ flux: 'pods', fluxOperator: true });
  const repo = path.join(root, 'examples/fleet');
  let code = 1;
  try {
    say(`  ready in ${(tb.timings.total! / 1000).toFixed(1)}s at ${tb.server}; node ${tb.node?.name} (${tb.node?.nodeIp})`);
    const { url, sha } = await serveRepo(tb.git, 'fleet', repo, `${tb.clusterGitBaseUrl}/fleet.git`);
    say(`» Serving examples/fleet at ${url} (main@sha1:${sha.slice(0, 8)})`);
    const standup = (...args: string[]) =>
      execa('node', [path.join(root, 'bin/standup.js'), ...args, '--repo', repo, '--cluster', 'dev', '--kubeconfig', tb.kubeconfigPath], { stdio: 'inherit', reject: false, cwd: root });
    say('» standup plan --repo examples/fleet');
    await standup('plan');
    say(`» standup up --repo examples/fleet --source-url ${url}   (flux-operator, then FluxInstance/flux-system/flux, then the tiers)`);
    code = (await standup('up', '--source-url', url)).exitCode ?? 1;
    say('» kubectl get pods -A');
    await execa('kubectl', ['--kubeconfig', tb.kubeconfigPath, 'get', 'pods', '-A'], { stdio: 'inherit', reject: false });
    say('» standup status --repo examples/fleet');
    await standup('status');
  } finally {
    say('» Stopping the testbed');
    await tb.stop();
  }
  process.exit(code);
}
