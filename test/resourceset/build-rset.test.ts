// The offline expansion against flux-operator's own: every case of test/fixtures/resourceset expanded by
// src/resourceset and printed as `flux-operator build rset` prints (sigs.k8s.io/yaml, one `---` document per object),
// compared with what that CLI (v0.58.1, the same builder package as the controller) printed for the case, recorded
// in build-rset-v0.58.1.txt. Static providers come from 05-providers.yaml, as the CLI's --inputs-from-provider.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { expandResourceSet } from '../../src/resourceset/expand.js';
import { goYaml } from '../../src/resourceset/go-yaml.js';

const DIR = path.resolve(import.meta.dirname, '../fixtures/resourceset');

/** The CLI reads manifests with sigs.k8s.io/yaml: YAML 1.1 (an input key `n:` is the key "false"). */
const docs = (file: string) => parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8'), { version: '1.1' }).map((d) => d.toJS() as Record<string, unknown>);

/** The recorded output of each case: the objects' YAML, or the error after the CLI's ✗. */
function recorded(): Map<string, string> {
  const out = new Map<string, string>();
  const text = readFileSync(path.join(DIR, 'build-rset-v0.58.1.txt'), 'utf8');
  for (const m of text.matchAll(/^### (\S+\.yaml)\n([\s\S]*?)^### exit \d+\n/gm)) out.set(m[1]!, m[2]!);
  return out;
}

const providers = docs('05-providers.yaml');
const cases = readdirSync(DIR).filter((f) => /^\d+-.*\.yaml$/.test(f) && !f.endsWith('-providers.yaml')).sort();

describe('ResourceSet expansion agrees with flux-operator build rset', () => {
  const want = recorded();
  it('has a recorded output for every case', () => {
    expect(cases.filter((c) => !want.has(c))).toEqual([]);
    expect(cases.length).toBeGreaterThanOrEqual(10);
  });

  it.each(cases)('%s', (c) => {
    const rset = docs(c)[0]!;
    const ns = String((rset.metadata as Record<string, unknown>).namespace);
    const out = expandResourceSet(rset, { inNamespace: (n) => (n === ns ? providers.map((p) => ({ ...p, metadata: { ...(p.metadata as object), namespace: n } })) : []) });
    const expected = want.get(c)!;
    if (c.includes('nonhermetic')) {
      // randInt differs on every reconcile: standup does not make up a number, it says which function it cannot evaluate.
      expect(out).toMatchObject({ ok: false, reason: 'build-failed', unsupportedFunction: 'randInt' });
      return;
    }
    if (expected.startsWith('✗ ')) {
      expect(out.ok).toBe(false);
      expect(!out.ok && out.reason === 'build-failed' ? out.message.replace(/^build failed: /, '') : '').toBe(expected.slice(2).trimEnd());
      return;
    }
    expect(out.ok).toBe(true);
    const objects = out.ok ? out.steps.flatMap((s) => s.objects) : [];
    const text = objects.map((o) => `---\n${goYaml(o)}`).join('');
    expect(text).toBe(expected);
  });
});
