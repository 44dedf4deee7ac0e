import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

// A testbed picks its ports before its components bind them, seconds later (tens of seconds under load). A port the
// OS hands out for listen(0) comes from the ephemeral range, the same range every outgoing connection takes its local
// port from: with several testbeds on the machine (integration shards, their files' own testbeds), a loopback
// connection took such a port in that window ("bind: address already in use" from kube-controller-manager). So the
// ports are drawn at random below the ephemeral range, where no connection's local port lands, and checked free.
const LOW = 10_000;

function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 0 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** The OS's pick (the ephemeral range): the fallback when the range below it is too small or full. */
function osPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (addr && typeof addr === 'object' ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

// Two testbeds starting at once (the shards', and the files' own) could still draw the same free port, each before
// the other's component binds it. So a drawn port is also claimed, machine-wide, by a file created exclusively
// under CLAIMS; a claim holds for CLAIM_MS (far longer than any start's pick-to-bind window; after it the port is
// either bound, which canListen sees, or unused), and stale claims are swept as ports are drawn.
const CLAIMS = path.join(tmpdir(), 'standup-testbed-ports');
const CLAIM_MS = 15 * 60_000;

function sweepClaims(now = Date.now()): void {
  try {
    for (const f of readdirSync(CLAIMS)) {
      const file = path.join(CLAIMS, f);
      try {
        if (now - statSync(file).mtimeMs > CLAIM_MS) rmSync(file, { force: true });
      } catch {
        // swept by another process meanwhile
      }
    }
  } catch {
    // no claims yet
  }
}

/** Claims the port for this process unless another (live) claim holds it. */
function claim(port: number): boolean {
  try {
    mkdirSync(CLAIMS, { recursive: true });
    writeFileSync(path.join(CLAIMS, String(port)), `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch {
    return false; // claimed by another testbed start within CLAIM_MS (or the directory cannot be written)
  }
}

/**
 * A port free on 127.0.0.1 right now, below the ephemeral range, and claimed by no other testbed start on the
 * machine (see CLAIMS); random, so parallel starts rarely even try the same one.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralStart() - 1;
  if (high - LOW >= 1000) {
    sweepClaims();
    for (let i = 0; i < 100; i++) {
      const port = LOW + Math.floor(Math.random() * (high - LOW + 1));
      if ((await canListen(port)) && claim(port)) return port;
    }
  }
  return osPort();
}

export async function freePorts(n: number): Promise<number[]> {
  const out = new Set<number>();
  while (out.size < n) out.add(await freePort());
  return [...out];
}
