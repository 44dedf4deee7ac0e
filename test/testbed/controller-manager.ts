import { spawnManaged, type ManagedProcess } from './process.js';
import { pollUntil } from './wait.js';
import { TestbedStartError } from './errors.js';
import { apiGetStatus } from './apiserver.js';

export interface ControllerManagerOptions {
  bin: string;
  kubeconfig: string;
  logFile: string;
  port: number;
  saKeyFile: string;
  rootCaFile: string;
}

export async function startControllerManager(o: ControllerManagerOptions, timeoutMs = 30_000): Promise<ManagedProcess> {
  const proc = spawnManaged('kube-controller-manager', o.bin, [
    `--kubeconfig=${o.kubeconfig}`,
    // Its own serving endpoint delegates authn/authz to the apiserver; give it
    // the same admin kubeconfig instead of letting it look for in-cluster config.
    `--authentication-kubeconfig=${o.kubeconfig}`,
    `--authorization-kubeconfig=${o.kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${o.port}`,
    '--leader-elect=false',
    // One admin identity is enough for a test cluster; per-controller SAs would
    // need their tokens minted before the controllers can work.
    '--use-service-account-credentials=false',
    `--service-account-private-key-file=${o.saKeyFile}`,
    `--root-ca-file=${o.rootCaFile}`,
    // The default set ('*'): namespace deletion, garbage collection, service
    // accounts and root-CA publishing are what tests rely on; the node and pod
    // loops simply idle without nodes. Names must exist, or KCM exits.
    '--controllers=*',
    '--v=1',
  ], { logFile: o.logFile });
  try {
    await pollUntil(
      'kube-controller-manager /healthz',
      async () => ((await apiGetStatus(`https://127.0.0.1:${o.port}/healthz`)).status === 200 ? true : undefined),
      { timeoutMs, abort: () => (proc.exit ? `exited with ${JSON.stringify(proc.exit)}` : undefined) },
    );
  } catch (e) {
    await proc.stop(1000);
    throw new TestbedStartError('kube-controller-manager', (e as Error).message, o.logFile);
  }
  return proc;
}
