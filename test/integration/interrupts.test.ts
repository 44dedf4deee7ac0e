// Ctrl-C at every boundary of a run, on a real cluster whose node runs Flux's controllers as pods: whatever the
// moment, nothing is left half-applied, the run's own advice names the command that finishes the job, and that
// command brings the cluster to the state an uninterrupted `up` leaves (every tier Ready at the pushed revision, the
// bootstrap secret and the mirror in place, and a later `up` with nothing left to write). One testbed; the rows run
// in order, each from a cluster `reset` tore down (the first from a bare one).
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Testbed } from '../testbed/harness.js';
import { describeAudit, readAudit } from '../testbed/audit.js';
import { sopsRepo, type SopsRepo } from '../testbed/sops.js';
import { standupProc } from './cli.js';
import { kube, ready } from './kube.js';
import { serveRepo } from './serve.js';

const TIERS = ['apps', 'apps-vms', 'crds', 'flux-system', 'headlamp', 'oauth2-proxy', 'platform', 'platform-config', 'platform-config-cdi'];

interface RunEvent {
  type: string;
  id?: string;
  message?: string;
  hint?: string;
  exitCode?: number;
}

interface Row {
  boundary: string;
  /** `reset` first: the run starts from a torn-down cluster (Flux stays), not a bare one. */
  reset: boolean;
  /** The event at which Ctrl-C is sent. */
  at: (e: RunEvent) => boolean;
  /** The exit codes the interrupted run may end with. */
  exit: number[];
  /** The command the run's advice names ('either': it depends on whether the interrupt came before the first write). */
  advice: 'up' | 'resume' | 'either' | null;
}

const ROWS: Row[] = [
  // The first event of the run, before its preflight (the context guard): the interrupt usually lands before any
  // write, and the advice must then say so truthfully (checked against the audit log).
  { boundary: 'before the context guard', reset: false, at: (e) => e.type === 'plan', exit: [130], advice: 'either' },
  // Flux is there (reset keeps it): the install's applies are all unchanged, so nothing was written, and says so.
  { boundary: 'during the Flux install', reset: true, at: (e) => e.type === 'step-start' && e.id === 'install', exit: [130], advice: 'up' },
  { boundary: 'between two tiers', reset: true, at: (e) => e.type === 'step-end' && e.id === 'tier:flux-system/crds', exit: [130], advice: 'resume' },
  { boundary: 'while a tier waits on its health check', reset: true, at: (e) => e.type === 'step-status' && e.id === 'tier:flux-system/platform', exit: [130], advice: 'resume' },
  // The run has ended: the interrupt finds nothing left to stop, and the run's own result stands.
  { boundary: 'during the summary', reset: true, at: (e) => e.type === 'run-end', exit: [0, 130], advice: null },
];

let tb: Testbed;
let sops: SopsRepo;
let mirror = '';
let sha = '';

beforeAll(async () => {
  tb = await start({ flux: 'pods', handleSignals: false });
  sops = await sopsRepo(tb.binDir);
  ({ url: mirror, sha } = await serveRepo(tb.git, 'homelab', sops.repo, `${tb.clusterGitBaseUrl}/homelab.git`));
}, 180_000);

afterAll(async () => {
  sops?.cleanup();
  await tb?.stop();
});

const run = (args: string[]) => standupProc(tb, [...args, '--repo', sops.repo, '--cluster', 'dev'], sops.repo, sops.env);
const events = (stdout: string): RunEvent[] => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as RunEvent);
const writes = (since: Date, until: Date) => readAudit(tb.auditLog, { since, until, mutating: true }).filter((e) => !e.requestURI.includes('dryRun=All')).map(describeAudit);

/** `up` with its events read as they come; Ctrl-C at the first event `at` accepts. */
async function interruptedUp(at: (e: RunEvent) => boolean) {
  const child = run(['up', '--source-url', mirror, '-o', 'json']);
  let buf = '';
  let sent = false;
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const l of lines) {
      if (sent || !l.startsWith('{')) continue;
      if (at(JSON.parse(l) as RunEvent)) {
        sent = true;
        child.kill('SIGINT');
      }
    }
  });
  const r = await child;
  return { r, sent };
}

async function converged(): Promise<string[]> {
  const kss = await kube(tb.kubeConfig()).kustomizations();
  const off = TIERS.filter((n) => {
    const k = kss.find((x) => x.metadata.name === n);
    return !k || !ready(k) || k.status?.lastAppliedRevision !== `main@sha1:${sha}`;
  });
  const core = tb.kubeConfig().makeApiClient(CoreV1Api);
  const secret = await core.readNamespacedSecret({ namespace: 'flux-system', name: 'cluster-secrets' }).catch(() => null);
  if (!secret) off.push('Secret/flux-system/cluster-secrets');
  const src = await kube(tb.kubeConfig()).gitRepository('flux-system');
  if ((src?.spec as { url?: string } | undefined)?.url !== mirror) off.push(`GitRepository/flux-system/flux-system not on the mirror`);
  return off;
}

describe.sequential('Ctrl-C at every boundary of up: resume (or the advice given) finishes the job', () => {
  it.each(ROWS)('$boundary', async (row) => {
    if (row.reset) {
      const reset = await run(['reset', '--yes']);
      expect(reset.exitCode, reset.all).toBe(0);
    }
    const t0 = new Date();
    const { r, sent } = await interruptedUp(row.at);
    const t1 = new Date();
    expect(sent, `${row.boundary}: the event to interrupt at never came\n${r.all}`).toBe(true);
    // A process the signal itself ended (it came as the process exited) is what a shell reports as 130.
    expect(row.exit, r.all).toContain(r.exitCode ?? (r.signal === 'SIGINT' ? 130 : r.signal));
    const end = events(r.stdout).find((e) => e.type === 'run-end');
    expect(end, r.all).toBeDefined();
    if (row.advice === null) {
      expect(await converged()).toEqual([]);
      return;
    }
    expect(end!.exitCode).toBe(130);
    // The advice names one command, and says "Nothing was written" only when the audit log agrees; following it
    // finishes the job.
    const hint = end!.hint ?? '';
    const cmd = /`standup (up|resume)`/.exec(hint)?.[1];
    expect(cmd, r.all).toBeDefined();
    if (row.advice !== 'either') expect(cmd).toBe(row.advice);
    if (hint.startsWith('Nothing was written')) expect(writes(t0, t1)).toEqual([]);
    const then = await run(cmd === 'up' ? ['up', '--source-url', mirror] : [cmd!]);
    expect(then.exitCode, then.all).toBe(0);
    expect(await converged()).toEqual([]);
    // The same end state as an uninterrupted up: nothing left to write but the request that fetches git.
    const t2 = new Date();
    const again = await run(['up', '--source-url', mirror]);
    expect(again.exitCode, again.all).toBe(0);
    expect(writes(t2, new Date())).toEqual(['patch gitrepositories flux-system/flux-system -> 200']);
  }, 600_000);
});
