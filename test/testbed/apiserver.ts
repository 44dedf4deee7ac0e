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
  /**
   * Where it listens and what it advertises. Default 127.0.0.1 with no endpoints for the `kubernetes` Service; a
   * testbed with a node passes the host end of the node's link, so pods reach it through that Service.
   */
  host?: string;
  /** Default 10.0.0.0/24. */
  serviceCidr?: string;
  /** Audit log (JSON lines) and its policy; see audit.ts. */
  auditLog?: string;
  auditPolicy?: string;
}

export const apiServerCertDir = (dir: string): string => path.join(dir, 'pki');

export const apiServerHost = (o: Pick<ApiServerOptions, 'host'>): string => o.host ?? '127.0.0.1';

function apiServerArgs(o: ApiServerOptions): string[] {
  const host = apiServerHost(o);
  return [
    `--etcd-servers=${o.etcdUrl}`,
    `--secure-port=${o.port}`,
    `--bind-address=${host}`,
    // Without it the server looks for a default-route interface and fails on
    // hosts that have none (ResolveBindAddress -> ChooseHostInterface).
    `--advertise-address=${host}`,
    // Loopback endpoints for the kubernetes Service would be useless (and are refused); the node's link address is
    // what pods reach, so then the endpoints are kept up to date by the lease reconciler.
    `--endpoint-reconciler-type=${o.host ? 'lease' : 'none'}`,
    // With no --tls-cert-file, it writes a self-signed apiserver.crt here; that
    // cert is its own CA, and covers the bind address and the kubernetes Service IP.
    `--cert-dir=${apiServerCertDir(o.dir)}`,
    `--service-cluster-ip-range=${o.serviceCidr ?? '10.0.0.0/24'}`,
    `--service-account-issuer=https://${host}:${o.port}`,
    // Logs and exec go to the kubelet by its InternalIP: the default tries the node's hostname first, which would be a
    // DNS query to the host's resolver, off this machine.
    '--kubelet-preferred-address-types=InternalIP',
    ...(o.auditLog && o.auditPolicy
      ? [`--audit-policy-file=${o.auditPolicy}`, `--audit-log-path=${o.auditLog}`, '--audit-log-format=json', '--audit-log-maxage=0', '--audit-log-maxbackup=0', '--audit-log-maxsize=0']
      : []),
    `--service-account-key-file=${o.saKeyFile}`,
    `--service-account-signing-key-file=${o.saKeyFile}`,
    `--token-auth-file=${o.tokenFile}`,
    '--authorization-mode=RBAC',
    '--allow-privileged=true',
    // Nobody here reads pprof; skip its handlers.
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
  const base = `https://${apiServerHost(o)}:${o.port}`;
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
