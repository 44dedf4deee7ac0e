// Addresses of one node testbed. Every node testbed on the machine takes a numbered slot (a lock file naming its
// owner pid), and each slot owns a /22 of 10.213.0.0/16: its pod range, its service range and the /30 that links the
// node's network namespace to the host. So two node testbeds never share an address, a route or a bridge.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestbedError } from '../errors.js';

export const SLOTS = 64;
const BASE = [10, 213] as const;

export interface NodeNetwork {
  slot: number;
  /** Pods' range; the CNI bridge takes .1 as the pods' gateway. */
  podCidr: string;
  podGateway: string;
  /** Services' range: .1 is the `kubernetes` Service, .10 cluster DNS. */
  serviceCidr: string;
  kubernetesServiceIp: string;
  dnsServiceIp: string;
  /** The host end of the link: the API server (and anything pods must reach on the host) listens here. */
  hostIp: string;
  /** The node's end (its InternalIP), inside the node's network namespace. */
  nodeIp: string;
  linkCidr: string;
  /** Host-side name of the veth pair (the node side is `uplink`, in its own namespace). */
  hostIf: string;
}

export function slotNetwork(slot: number): NodeNetwork {
  const third = slot * 4;
  const net = (o: number, last: number) => `${BASE[0]}.${BASE[1]}.${third + o}.${last}`;
  return {
    slot,
    podCidr: `${net(0, 0)}/24`,
    podGateway: net(0, 1),
    serviceCidr: `${net(1, 0)}/24`,
    kubernetesServiceIp: net(1, 1),
    dnsServiceIp: net(1, 10),
    hostIp: net(2, 1),
    nodeIp: net(2, 2),
    linkCidr: `${net(2, 0)}/30`,
    hostIf: `stbh${slot}`,
  };
}

const ipToInt = (ip: string) => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
function range(cidr: string): [number, number] {
  const [ip, bits = '32'] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const start = Math.floor(ipToInt(ip!) / size) * size;
  return [start, start + size - 1];
}
export const overlaps = (a: string, b: string): boolean => {
  const [a0, a1] = range(a);
  const [b0, b1] = range(b);
  return a0 <= b1 && b0 <= a1;
};

/** Every IPv4 prefix the host uses (addresses and routes), so a slot that collides with one is skipped. */
function hostPrefixes(): string[] {
  const out: string[] = [];
  const lines = (args: string[]) => execFileSync('ip', args, { encoding: 'utf8' }).split('\n');
  for (const l of lines(['-4', '-o', 'addr', 'show'])) {
    const m = / inet (\d+\.\d+\.\d+\.\d+\/\d+)/.exec(l);
    if (m) out.push(m[1]!);
  }
  for (const l of lines(['-4', 'route', 'show', 'table', 'all'])) {
    const dst = l.split(' ')[0];
    if (dst && /^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(dst)) out.push(dst.includes('/') ? dst : `${dst}/32`);
  }
  return out.filter((p) => !p.startsWith('127.'));
}

export const slotFile = (slot: number): string => path.join(tmpdir(), `standup-node-slot-${slot}.json`);
export const SLOT_GLOB = path.join(tmpdir(), 'standup-node-slot-*.json');

interface SlotOwner {
  pid: number;
  dir: string;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Slots held by a live process (a dead owner's slot is free: its reaper cleans up what it left). */
export function liveSlots(): number[] {
  return readdirSync(tmpdir())
    .map((f) => /^standup-node-slot-(\d+)\.json$/.exec(f))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => Number(m[1]))
    .filter((s) => {
      try {
        return alive((JSON.parse(readFileSync(slotFile(s), 'utf8')) as SlotOwner).pid);
      } catch {
        return false;
      }
    });
}

/** Takes the first free slot whose ranges no host address or route overlaps. */
export function allocateSlot(dir: string): NodeNetwork {
  const used = hostPrefixes();
  for (let slot = 0; slot < SLOTS; slot++) {
    const n = slotNetwork(slot);
    const block = `${BASE[0]}.${BASE[1]}.${slot * 4}.0/22`;
    const file = slotFile(slot);
    if (existsSync(file)) {
      let owner: SlotOwner | undefined;
      try {
        owner = JSON.parse(readFileSync(file, 'utf8')) as SlotOwner;
      } catch {
        // half-written by a racing start: treat as taken
        continue;
      }
      if (alive(owner.pid)) continue;
      rmSync(file, { force: true });
    }
    // A dead owner's routes vanish with its veth; anything still routed there belongs to someone else.
    if (used.some((p) => overlaps(p, block))) continue;
    try {
      writeFileSync(file, JSON.stringify({ pid: process.pid, dir } satisfies SlotOwner), { flag: 'wx' });
    } catch {
      continue; // another testbed took it a moment ago
    }
    return n;
  }
  throw new TestbedError(`no free node slot: ${SLOTS} node testbeds already run here, or 10.213.0.0/16 is in use on this host`);
}

export function releaseSlot(slot: number): void {
  rmSync(slotFile(slot), { force: true });
}
