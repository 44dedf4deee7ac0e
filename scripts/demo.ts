// npm run demo: the main job on the bundled example, with no cluster of your own.
// Builds the testbed if needed (a real kube-apiserver, etcd and the Flux controllers, from Go modules), starts it,
// serves examples/homelab from a loopback git server, runs `standup up` with the live UI, shows `standup status`,
// and stops everything.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { parse } from 'yaml';
import { start } from '../test/testbed/harness.js';
import { serveRepo } from '../test/integration/serve.js';

const root = path.resolve(import.meta.dirname, '..');
const example = path.join(root, 'examples/homelab');
const say = (s: string) => process.stderr.write(`\u001b[1m${s}\u001b[0m\n`);

// Idempotent: the first run builds (see test/testbed/README.md for how long), later runs cost nothing.
say('» Testbed binaries (kube-apiserver, etcd, Flux controllers; built once into ~/.cache/standup-testbed)');
await execa('bash', [path.join(root, 'scripts/build-testbed.sh')], { stdio: 'inherit' });
say('» Starting the testbed: etcd, kube-apiserver, kube-controller-manager, source-controller, kustomize-controller…');
const tb = await start();
let code = 1;
try {
  say(`  ready in ${(tb.timings.total! / 1000).toFixed(1)}s at ${tb.server}`);
  // Served as its owner would push it: the root sync in it names the loopback URL it is served from.
  const { url, sha } = await serveRepo(tb.git, 'homelab', example);
  say(`» Serving examples/homelab at ${url} (main@sha1:${sha.slice(0, 8)})`);
  // The cdi-operator of the seeds: a CDI resource makes it create the StorageProfile and DataVolume CRDs at runtime.
  for (const file of ['storageprofiles.cdi.kubevirt.io.yaml', 'datavolumes.cdi.kubevirt.io.yaml']) {
    tb.operator.start({ trigger: { group: 'cdi.kubevirt.io', version: 'v1beta1', plural: 'cdis' }, crd: parse(readFileSync(path.join(example, 'bootstrap/crds', file), 'utf8')), delayMs: 2000 });
  }
  const standup = (...args: string[]) =>
    execa('node', [path.join(root, 'bin/standup.js'), ...args, '--cluster', 'dev', '--kubeconfig', tb.kubeconfigPath], { stdio: 'inherit', reject: false, cwd: root });
  say('» standup plan --cluster dev');
  await execa('node', [path.join(root, 'bin/standup.js'), 'plan', '--cluster', 'dev'], { stdio: 'inherit', cwd: root });
  say(`» standup up --cluster dev --source-url ${url}`);
  code = (await standup('up', '--source-url', url)).exitCode ?? 1;
  say('» standup status --cluster dev');
  await standup('status');
} finally {
  say('» Stopping the testbed');
  await tb.stop();
}
process.exit(code);
