// npm run testbed -- up|down|env|status
//
// `up` starts a testbed (etcd, kube-apiserver, kube-controller-manager, Flux
// source/kustomize-controller, a loopback git server) in a detached background
// process and prints `export KUBECONFIG=...`; `env` prints it again; `down`
// stops everything. State lives in ${TMPDIR:-/tmp}/standup-testbed-<uid>/.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { start, type TestbedInfo } from '../test/testbed/harness.js';
import { TestbedBinariesMissingError } from '../test/testbed/errors.js';

interface State {
  pid: number;
  info: TestbedInfo;
}

const stateDir = path.join(process.env.TMPDIR || tmpdir(), `standup-testbed-${process.getuid?.() ?? 'user'}`);
const stateFile = path.join(stateDir, 'state.json');
const serveLog = path.join(stateDir, 'serve.log');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function readState(): State | undefined {
  if (!existsSync(stateFile)) return undefined;
  const s = JSON.parse(readFileSync(stateFile, 'utf8')) as State;
  return alive(s.pid) ? s : undefined;
}

function printEnv(s: State): void {
  const i = s.info;
  process.stdout.write(`export KUBECONFIG=${i.kubeconfigPath}\n`);
  process.stderr.write(
    `# context ${i.contextName}, server ${i.server}\n` +
      `# git server ${i.gitBaseUrl}/<repo>.git (bare repos in ${i.gitRoot})\n` +
      `# Flux in namespace ${i.fluxNamespace}; logs in ${i.logs}\n` +
      `# started in ${i.timings.total} ms; stop with: npm run testbed -- down\n`,
  );
}

async function up(): Promise<number> {
  const running = readState();
  if (running) {
    process.stderr.write(`testbed already running (pid ${running.pid})\n`);
    printEnv(running);
    return 0;
  }
  mkdirSync(stateDir, { recursive: true });
  rmSync(stateFile, { force: true });
  const fd = openSync(serveLog, 'w');
  // Re-run this script under the same loader (tsx) as a detached daemon.
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '__serve'], {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: process.env,
  });
  closeSync(fd);
  child.unref();
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const s = readState();
    if (s) {
      printEnv(s);
      return 0;
    }
    if (child.pid === undefined || !alive(child.pid)) break;
    await sleep(300);
  }
  process.stderr.write(`testbed failed to start; ${serveLog}:\n${readFileSync(serveLog, 'utf8')}\n`);
  if (child.pid !== undefined && alive(child.pid)) process.kill(child.pid, 'SIGTERM');
  return 1;
}

async function serve(): Promise<void> {
  const tb = await start({
    tmpRoot: stateDir,
    // This daemon stops gracefully itself; the reaper covers SIGKILL.
    handleSignals: false,
    log: (l) => process.stdout.write(`${new Date().toISOString()} ${l}\n`),
  });
  let stopping = false;
  const shutdown = async (sig: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${new Date().toISOString()} ${sig}: stopping\n`);
    await tb.stop();
    rmSync(stateFile, { force: true });
    process.exit(0);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => void shutdown(sig));
  const state: State = { pid: process.pid, info: tb.info };
  // Rename, so `up` never reads a half-written file.
  writeFileSync(`${stateFile}.tmp`, JSON.stringify(state, null, 2));
  renameSync(`${stateFile}.tmp`, stateFile);
  process.stdout.write(`${new Date().toISOString()} ready: KUBECONFIG=${tb.kubeconfigPath}\n`);
}

async function down(): Promise<number> {
  if (!existsSync(stateFile)) {
    process.stderr.write('no testbed running\n');
    return 0;
  }
  const s = JSON.parse(readFileSync(stateFile, 'utf8')) as State;
  if (alive(s.pid)) {
    process.kill(s.pid, 'SIGTERM');
    const deadline = Date.now() + 30_000;
    while (alive(s.pid) && Date.now() < deadline) await sleep(200);
  }
  if (alive(s.pid)) {
    process.stderr.write(`daemon ${s.pid} did not stop; killing it and its process groups\n`);
    process.kill(s.pid, 'SIGKILL');
    const pids = existsSync(path.join(s.info.dir, 'pids'))
      ? readFileSync(path.join(s.info.dir, 'pids'), 'utf8').split(/\s+/).filter(Boolean).map(Number)
      : [];
    for (const p of pids) {
      try {
        process.kill(-p, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  rmSync(s.info.dir, { recursive: true, force: true });
  rmSync(stateFile, { force: true });
  process.stderr.write('testbed stopped\n');
  return 0;
}

async function main(cmd: string | undefined): Promise<number> {
  switch (cmd) {
    case 'up':
      return up();
    case '__serve':
      await serve();
      return -1; // keep running
    case 'env': {
      const s = readState();
      if (!s) {
        process.stderr.write('no testbed running; start one with: npm run testbed -- up\n');
        return 1;
      }
      printEnv(s);
      return 0;
    }
    case 'status': {
      const s = readState();
      process.stdout.write(s ? `running (pid ${s.pid}), ${s.info.server}\n` : 'not running\n');
      return s ? 0 : 1;
    }
    case 'down':
      return down();
    default:
      process.stderr.write('usage: npm run testbed -- up|down|env|status\n');
      return 2;
  }
}

main(process.argv[2]).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof TestbedBinariesMissingError ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
