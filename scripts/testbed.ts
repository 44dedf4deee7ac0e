// npm run testbed -- up|down|env|status|list [--id ID] [--no-node] [--flux-pods] [--all]
//
// `up` starts a testbed (etcd, kube-apiserver, kube-controller-manager, Flux source/kustomize-controller, a
// loopback git server, and by default a node: containerd, kubelet, kube-scheduler, kube-proxy, helm-controller) in
// a detached background process and prints `export KUBECONFIG=...` and `export STANDUP_TESTBED_ID=...`. Every `up`
// starts a testbed of its own, with its own state dir (${TMPDIR:-/tmp}/standup-testbed-<uid>/<id>/), so two `up`s at
// once give two working testbeds. `env`, `status` and `down` act on the one named by --id or STANDUP_TESTBED_ID, or
// on the only one running; `down --all` stops every one; `list` shows them.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { nodeByDefault, start, type TestbedInfo } from '../test/testbed/harness.js';
import { TestbedBinariesMissingError } from '../test/testbed/errors.js';

interface State {
  id: string;
  pid: number;
  info: TestbedInfo;
}

// STANDUP_TESTBED_STATE_ROOT: another root, for a test that must see only its own `up`s (the machine may run others).
const stateRoot = process.env.STANDUP_TESTBED_STATE_ROOT || path.join(process.env.TMPDIR || tmpdir(), `standup-testbed-${process.getuid?.() ?? 'user'}`);
const idDir = (id: string) => path.join(stateRoot, id);
const stateFile = (id: string) => path.join(idDir(id), 'state.json');
const serveLog = (id: string) => path.join(idDir(id), 'serve.log');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function readState(id: string): State | undefined {
  if (!existsSync(stateFile(id))) return undefined;
  const s = JSON.parse(readFileSync(stateFile(id), 'utf8')) as State;
  return alive(s.pid) ? s : undefined;
}

/** Every testbed with a state dir here (running or not). */
const ids = (): string[] => (existsSync(stateRoot) ? readdirSync(stateRoot).filter((d) => existsSync(path.join(stateRoot, d, 'state.json')) || existsSync(path.join(stateRoot, d, 'serve.log'))) : []);

class UsageError extends Error {}

/** --id, else STANDUP_TESTBED_ID, else the only running testbed. */
function pick(args: Args): State {
  const id = args.id ?? process.env.STANDUP_TESTBED_ID;
  if (id) {
    const s = readState(id);
    if (!s) throw new UsageError(`no testbed ${id} is running; \`npm run testbed -- list\` shows the running ones`);
    return s;
  }
  const running = ids().map(readState).filter((s): s is State => !!s);
  if (running.length === 1) return running[0]!;
  if (running.length === 0) throw new UsageError('no testbed running; start one with: npm run testbed -- up');
  throw new UsageError(`${running.length} testbeds are running (${running.map((s) => s.id).join(', ')}); name one with --id ID or STANDUP_TESTBED_ID`);
}

function printEnv(s: State): void {
  const i = s.info;
  process.stdout.write(`export KUBECONFIG=${i.kubeconfigPath}\nexport STANDUP_TESTBED_ID=${s.id}\n`);
  process.stderr.write(
    `# testbed ${s.id}: context ${i.contextName}, server ${i.server}\n` +
      `# git server ${i.gitBaseUrl}/<repo>.git (bare repos in ${i.gitRoot})\n` +
      (i.node ? `# node ${i.node.name} at ${i.node.nodeIp}, pods ${i.node.podCidr}, services ${i.node.serviceCidr}\n` : '# no node (pods never run)\n') +
      `# Flux in namespace ${i.fluxNamespace}; logs in ${i.logs}; audit log ${i.auditLog}\n` +
      `# started in ${i.timings.total} ms; stop with: npm run testbed -- down --id ${s.id}\n`,
  );
}

async function up(args: Args): Promise<number> {
  const id = `tb-${randomBytes(3).toString('hex')}`;
  mkdirSync(idDir(id), { recursive: true });
  const fd = openSync(serveLog(id), 'w');
  // Re-run this script under the same loader (tsx) as a detached daemon.
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '__serve', '--id', id, ...(args.node ? [] : ['--no-node']), ...(args.fluxPods ? ['--flux-pods'] : [])], {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: process.env,
  });
  closeSync(fd);
  child.unref();
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const s = readState(id);
    if (s) {
      printEnv(s);
      return 0;
    }
    if (child.pid === undefined || !alive(child.pid)) break;
    await sleep(300);
  }
  process.stderr.write(`testbed failed to start; ${serveLog(id)}:\n${readFileSync(serveLog(id), 'utf8')}\n`);
  if (child.pid !== undefined && alive(child.pid)) process.kill(child.pid, 'SIGTERM');
  return 1;
}

async function serve(args: Args): Promise<void> {
  const id = args.id!;
  const tb = await start({
    tmpRoot: idDir(id),
    node: args.node,
    ...(args.fluxPods ? { flux: 'pods' as const } : {}),
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
    rmSync(stateFile(id), { force: true });
    process.exit(0);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => void shutdown(sig));
  const state: State = { id, pid: process.pid, info: tb.info };
  // Rename, so `up` never reads a half-written file.
  writeFileSync(`${stateFile(id)}.tmp`, JSON.stringify(state, null, 2));
  renameSync(`${stateFile(id)}.tmp`, stateFile(id));
  process.stdout.write(`${new Date().toISOString()} ready: KUBECONFIG=${tb.kubeconfigPath}\n`);
}

async function downOne(id: string): Promise<void> {
  const file = stateFile(id);
  const s = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as State) : undefined;
  if (s && alive(s.pid)) {
    process.kill(s.pid, 'SIGTERM');
    const deadline = Date.now() + 30_000;
    while (alive(s.pid) && Date.now() < deadline) await sleep(200);
    if (alive(s.pid)) {
      process.stderr.write(`daemon ${s.pid} did not stop; killing it (its reaper cleans up)\n`);
      process.kill(s.pid, 'SIGKILL');
      const reaped = Date.now() + 30_000;
      while (existsSync(s.info.dir) && Date.now() < reaped) await sleep(300);
    }
  }
  rmSync(idDir(id), { recursive: true, force: true });
  process.stderr.write(`testbed ${id} stopped\n`);
}

async function down(args: Args): Promise<number> {
  if (args.all) {
    for (const id of ids()) await downOne(id);
  } else {
    await downOne(pick(args).id);
  }
  if (existsSync(stateRoot) && readdirSync(stateRoot).length === 0) rmSync(stateRoot, { recursive: true, force: true });
  return 0;
}

interface Args {
  id?: string;
  node: boolean;
  /** A bare cluster with a node and no Flux (Flux's images imported), for trying `up`'s own install of Flux. */
  fluxPods?: boolean;
  all: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { node: nodeByDefault(), all: false };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i]!;
    if (x === '--id') a.id = argv[++i];
    else if (x.startsWith('--id=')) a.id = x.slice(5);
    else if (x === '--no-node') a.node = false;
    else if (x === '--node') a.node = true;
    else if (x === '--all') a.all = true;
    else if (x === '--flux-pods') a.fluxPods = true;
    else throw new UsageError(`unknown argument ${x}`);
  }
  return a;
}

const USAGE = 'usage: npm run testbed -- up [--no-node] [--flux-pods] | down [--id ID | --all] | env [--id ID] | status [--id ID] | list\n';

async function main(cmd: string | undefined, rest: string[]): Promise<number> {
  try {
    const args = parseArgs(rest);
    switch (cmd) {
      case 'up':
        return await up(args);
      case '__serve':
        await serve(args);
        return -1; // keep running
      case 'env':
        printEnv(pick(args));
        return 0;
      case 'status': {
        const s = pick(args);
        process.stdout.write(`${s.id} running (pid ${s.pid}), ${s.info.server}${s.info.node ? `, node ${s.info.node.nodeIp}` : ''}\n`);
        return 0;
      }
      case 'list':
        for (const id of ids()) {
          const s = readState(id);
          process.stdout.write(`${id}\t${s ? `running (pid ${s.pid})\t${s.info.server}` : 'not running'}\n`);
        }
        return 0;
      case 'down':
        return await down(args);
      default:
        process.stderr.write(USAGE);
        return 2;
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`${e.message}\n`);
    return cmd === 'status' || cmd === 'env' ? 1 : 2;
  }
}

main(process.argv[2], process.argv.slice(3)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof TestbedBinariesMissingError ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
