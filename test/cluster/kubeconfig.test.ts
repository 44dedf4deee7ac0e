import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import { ConfigError, ExitCode } from '../../src/model/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'standup-kc-'));
function file(name: string, o: { current?: string; contexts: [string, string][]; clusters: [string, string][] }): string {
  const p = join(dir, name);
  const y = [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${o.current ?? '""'}`,
    'clusters:',
    ...o.clusters.map(([n, s]) => `- name: ${n}\n  cluster:\n    server: ${s}`),
    'users:',
    '- name: u\n  user:\n    token: t',
    'contexts:',
    ...o.contexts.map(([n, c]) => `- name: ${n}\n  context:\n    cluster: ${c}\n    user: u`),
  ].join('\n');
  writeFileSync(p, y + '\n');
  return p;
}

const a = file('a.yaml', { current: 'ctx-a', contexts: [['ctx-a', 'ca'], ['shared', 'ca']], clusters: [['ca', 'https://a.example:6443']] });
const b = file('b.yaml', { current: 'ctx-b', contexts: [['ctx-b', 'cb'], ['shared', 'cb']], clusters: [['cb', 'https://b.example:6443'], ['ca', 'https://evil.example']] });
const noCurrent = file('none.yaml', { contexts: [['ctx-n', 'cn']], clusters: [['cn', 'https://n.example']] });
const empty = join(dir, 'empty.yaml');
writeFileSync(empty, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');

const thrown = (f: () => unknown): ConfigError => {
  try {
    f();
  } catch (e) {
    return e as ConfigError;
  }
  throw new Error('expected a throw');
};

describe('loadKubeconfig', () => {
  it('takes the FIRST KUBECONFIG file\'s current-context, like kubectl (client-node takes the last)', () => {
    const k = loadKubeconfig({ env: { KUBECONFIG: [a, b].join(delimiter) }, home: dir });
    expect([k.context, k.server]).toEqual(['ctx-a', 'https://a.example:6443']);
    expect(k.files).toEqual([a, b]);
  });

  it('lets the first file win a name both define, instead of throwing on duplicates', () => {
    const k = loadKubeconfig({ env: { KUBECONFIG: [a, b].join(delimiter) }, home: dir, context: 'shared' });
    expect(k.server).toBe('https://a.example:6443');
  });

  it('takes the first non-empty current-context when the first file sets none', () => {
    const k = loadKubeconfig({ env: { KUBECONFIG: [noCurrent, b].join(delimiter) }, home: dir });
    expect(k.context).toBe('ctx-b');
  });

  it('skips KUBECONFIG entries that do not exist, as kubectl does', () => {
    const k = loadKubeconfig({ env: { KUBECONFIG: [join(dir, 'missing'), b].join(delimiter) }, home: dir });
    expect(k.context).toBe('ctx-b');
  });

  it('switches to --context and reports its server', () => {
    const k = loadKubeconfig({ env: { KUBECONFIG: [a, b].join(delimiter) }, home: dir, context: 'ctx-b' });
    expect([k.context, k.server, k.namespace]).toEqual(['ctx-b', 'https://b.example:6443', 'default']);
  });

  it('reads only --kubeconfig when given, ignoring KUBECONFIG', () => {
    const k = loadKubeconfig({ kubeconfig: b, env: { KUBECONFIG: a }, home: dir });
    expect(k.context).toBe('ctx-b');
  });

  it('falls back to ~/.kube/config', () => {
    const home = mkdtempSync(join(tmpdir(), 'standup-home-'));
    const kube = join(home, '.kube');
    mkdirSync(kube);
    copyFileSync(a, join(kube, 'config'));
    expect(loadKubeconfig({ env: {}, home }).context).toBe('ctx-a');
  });

  it.each([
    ['no KUBECONFIG and no ~/.kube/config', { env: {}, home: join(dir, 'nohome') }, 'no kubeconfig found; set KUBECONFIG or pass --kubeconfig'],
    ['KUBECONFIG naming only missing files', { env: { KUBECONFIG: join(dir, 'x') }, home: join(dir, 'nohome') }, 'no kubeconfig found; set KUBECONFIG or pass --kubeconfig'],
    ['a kubeconfig with no clusters (client-node would use localhost:8080)', { kubeconfig: empty, env: {} }, 'no kubeconfig found; set KUBECONFIG or pass --kubeconfig'],
    ['a missing --kubeconfig file', { kubeconfig: join(dir, 'nope.yaml'), env: {} }, 'does not exist'],
    ['an unknown --context, listing the available ones', { env: { KUBECONFIG: a }, context: 'typo' }, 'context "typo" not found in ' + a + '; available: ctx-a, shared'],
    ['no current-context and no --context', { env: { KUBECONFIG: noCurrent } }, 'sets no current-context; pass --context (available: ctx-n)'],
  ])('refuses %s with a ConfigError (exit 2)', (_n, opts, msg) => {
    const e = thrown(() => loadKubeconfig(opts));
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.exitCode).toBe(ExitCode.config);
    expect(e.message).toContain(msg);
  });

  it('says what to do next for a missing --kubeconfig file and an unknown --context', () => {
    expect((thrown(() => loadKubeconfig({ kubeconfig: join(dir, 'nope.yaml'), env: {} })) as ConfigError).hint).toMatch(/Pass --kubeconfig with an existing file/);
    expect((thrown(() => loadKubeconfig({ env: { KUBECONFIG: a }, context: 'typo' })) as ConfigError).hint).toMatch(/Pass --context with one of those/);
  });
});
