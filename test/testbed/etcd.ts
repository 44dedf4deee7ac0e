import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { spawnManaged, type ManagedProcess } from './process.js';
import { pollUntil } from './wait.js';
import { TestbedStartError } from './errors.js';

export interface EtcdOptions {
  bin: string;
  dataDir: string;
  logFile: string;
  clientPort: number;
  peerPort: number;
}

export function etcdUrl(o: Pick<EtcdOptions, 'clientPort'>): string {
  return `http://127.0.0.1:${o.clientPort}`;
}

export async function startEtcd(o: EtcdOptions, timeoutMs = 20_000): Promise<ManagedProcess> {
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const client = etcdUrl(o);
  const peer = `http://127.0.0.1:${o.peerPort}`;
  const proc = spawnManaged('etcd', o.bin, [
    '--name=default',
    `--data-dir=${o.dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    // Test data is disposable; fsync on every write is most of etcd's latency.
    '--unsafe-no-fsync',
    '--log-level=warn',
  ], { logFile: o.logFile });
  try {
    await pollUntil(
      'etcd /health',
      async () => {
        const r = await fetch(`${client}/health`);
        const body = (await r.json()) as { health?: string };
        return body.health === 'true' ? true : undefined;
      },
      { timeoutMs, abort: () => (proc.exit ? `exited with ${JSON.stringify(proc.exit)}` : undefined) },
    );
  } catch (e) {
    await proc.stop(1000);
    throw new TestbedStartError('etcd', (e as Error).message, o.logFile);
  }
  return proc;
}

export const etcdDataDir = (dir: string): string => path.join(dir, 'etcd');
