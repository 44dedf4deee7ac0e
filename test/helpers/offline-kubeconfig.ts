import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A temporary directory holding a kubeconfig (context `dev`) whose server is a port nobody listens on: reading a run
 * target with it never connects. The caller removes `dir`.
 */
export function offlineKubeconfig(prefix: string): { dir: string; kubeconfig: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, [
    'apiVersion: v1', 'kind: Config',
    'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
    'users: [{name: u, user: {token: t}}]',
    'contexts: [{name: dev, context: {cluster: c, user: u}}]',
    'current-context: dev', '',
  ].join('\n'));
  return { dir, kubeconfig };
}
