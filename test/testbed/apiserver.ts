import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'node:https';
import { spawnManaged, type ManagedProcess } from './process.js';
import { pollUntil } from './wait.js';
import { TestbedStartError } from './errors.js';

export interface ApiServerOptions {
  bin: string;
  /** State dir: pki/, sa.key, tokens.csv live here. */
  dir: string;
  logFile: string;
  port: number;
  etcdUrl: string;
  saKeyFile: string;
  tokenFile: string;
}

export const apiServerCertDir = (dir: string): string => path.join(dir, 'pki');

function apiServerArgs(o: ApiServerOptions): string[] {
  return [
    `--etcd-servers=${o.etcdUrl}`,
    `--secure-port=${o.port}`,
    '--bind-address=127.0.0.1',
    // Without it the server looks for a default-route interface and fails on
    // hosts that have none (ResolveBindAddress -> ChooseHostInterface).
    '--advertise-address=127.0.0.1',
    // Do not publish loopback Endpoints for the kubernetes Service.
    '--endpoint-reconciler-type=none',
    // With no --tls-cert-file, it writes a self-signed apiserver.crt here; that
    // cert is its own CA, and covers 127.0.0.1.
    `--cert-dir=${apiServerCertDir(o.dir)}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    `--service-account-issuer=https://127.0.0.1:${o.port}`,
    `--service-account-key-file=${o.saKeyFile}`,
    `--service-account-signing-key-file=${o.saKeyFile}`,
    `--token-auth-file=${o.tokenFile}`,
    '--authorization-mode=RBAC',
    '--allow-privileged=true',
    // Nothing here runs pods; skip the cost of every pod-only controller loop.
    '--profiling=false',
    '--v=1',
  ];
}

export async function startApiServer(o: ApiServerOptions, timeoutMs = 60_000): Promise<ManagedProcess> {
  const proc = spawnManaged('kube-apiserver', o.bin, apiServerArgs(o), { logFile: o.logFile });
  try {
    await waitApiServerReady(o, proc, timeoutMs);
  } catch (e) {
    await proc.stop(1000);
    throw new TestbedStartError('kube-apiserver', (e as Error).message, o.logFile);
  }
  return proc;
}

/** Reads the self-signed serving cert (exists once the server has started). */
export function apiServerCaPem(dir: string): string {
  return readFileSync(path.join(apiServerCertDir(dir), 'apiserver.crt'), 'utf8');
}

// /readyz is public (system:public-info-viewer) but the CA file only exists
// once the server wrote it, so the first probes skip verification.
const insecure = new Agent({ rejectUnauthorized: false });

function getStatus(url: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent: insecure, headers: token ? { authorization: `Bearer ${token}` } : {}, timeout: 5000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

async function waitApiServerReady(o: ApiServerOptions, proc: ManagedProcess, timeoutMs: number): Promise<void> {
  const base = `https://127.0.0.1:${o.port}`;
  const abort = () => (proc.exit ? `exited with ${JSON.stringify(proc.exit)}` : undefined);
  await pollUntil(
    'kube-apiserver /readyz',
    async () => {
      const r = await getStatus(`${base}/readyz`);
      if (r.status === 200) return true;
      throw new Error(`/readyz ${r.status}: ${r.body.split('\n').filter((l) => l.includes('[-]')).join('; ')}`);
    },
    { timeoutMs, abort },
  );
}

export { getStatus as apiGetStatus };
