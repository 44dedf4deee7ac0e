// The repair of a runtime-CRD deadlock, as the seeds' author made it by hand: the custom resources move to a new tier
// that depends on the tier making their CRD exist, that tier waits for health when the CRD appears only once it is
// healthy (an operator, a chart), and every tier that depended on the old tier also depends on the new one, so the
// guarantee it had (the resources exist before it runs) is not silently lost.
//
// The new tier: a folder beside the old tier's path, named `<path>-<suffix>`, with a kustomization.yaml listing the
// moved files, and a Flux Kustomization `<name>-<suffix>` next to the old one's definition that takes over how the
// old one applies (source, intervals, timeout, prune, namespace, service account, decryption, substitution, ...).
// The suffix is the first label of the resources' API group (cdi.kubevirt.io -> cdi; several groups, or a label the old name
// has already: crs), or --suffix; `-2`, `-3`, ... is added when the name or the folder is taken.
import path from 'node:path/posix';
import { parseDocument, isMap } from 'yaml';
import { carriedOver, referencesTo } from './kustomize-chain.js';
import type { FluxKustomization, RenderedObject } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { groupOf, ksKey, parseKsKey, refKey } from '../model/ref.js';
import type { PlanContext } from '../plan/plan.js';
import { transitiveDeps } from '../graph/graph.js';
import { hasContent, type RepoFiles, type DocSlice } from './files.js';
import type { FixPlan } from './fix-plan.js';
import { addDependsOn, kustomizationDoc, setWait } from './kustomization-edits.js';
import { appendItem, removeItems, UnsafeEdit } from './yaml-splice.js';

export interface NewTierRepair {
  ctx: PlanContext;
  /** The tier the resources leave (`namespace/name`). */
  tier: string;
  /** The tier that makes their CRD exist, and whether it must be healthy (not only applied) first. */
  installer: { tier: string; ready: boolean };
  objects: RenderedObject[];
  problems: Problem[];
  suffix?: string;
  /** The apiVersion to write for a Flux Kustomization (the removed-api replacement when the old one's is removed). */
  kustomizationApi: (apiVersion: string) => string;
  /** Every kustomization file of the repository (repository-relative), to find who lists a moved file. */
  kustomizationFiles: readonly string[];
}

type Out = Omit<FixPlan, 'files'>;

/** Spec fields the new Flux Kustomization takes over from the old one: how it applies, never what it applies. */
const TAKEN_OVER = [
  'sourceRef', 'interval', 'retryInterval', 'timeout', 'prune', 'wait', 'force', 'targetNamespace', 'serviceAccountName',
  'kubeConfig', 'decryption', 'postBuild', 'commonMetadata', 'namePrefix', 'nameSuffix',
];

/** Plans the new tier into `files`; throws UnsafeEdit (nothing of it applied) when some part cannot be made safely. */
export function planNewTier(r: NewTierRepair, files: RepoFiles, out: Out): void {
  const { ctx, tier } = r;
  const old = ctx.graph.nodes.get(tier);
  if (!old || old.repoPath === null || old.path === null) throw new UnsafeEdit(`${tier} is not built from this repository`);
  const { slice: oldSlice, value: oldValue } = kustomizationDoc(files, old);
  const oldSpec = (oldValue.spec ?? {}) as Record<string, unknown>;
  const writtenPath = String(oldSpec.path ?? '');
  if (writtenPath.includes('${')) throw new UnsafeEdit(`${tier}'s spec.path (${writtenPath}) is substituted: the new folder differs per cluster`);
  // The old one's own overlay on what it applies: the new tier would apply the moved resources without it.
  const overlay = ['patches', 'images', 'components'].filter((k) => k in oldSpec);
  if (overlay.length > 0) throw new UnsafeEdit(`${tier} sets spec.${overlay.join(', spec.')}, which may apply to the moved resources; make the new tier by hand and give it what of that applies`);
  const base = old.repoPath.replace(/\/+$/, '');
  if (base === '' || base === '.') throw new UnsafeEdit(`${tier} applies the repository's root folder: a folder beside it does not exist`);

  const { name, folder } = newNames(r, old, files);
  const newKey = ksKey(old.namespace, name);
  const newPath = `${writtenPath.replace(/\/+$/, '')}-${folder.slice(base.length + 1)}`;

  // The new tier must not be required before what makes the CRD exist: a tier the installer depends on that depends
  // on the old tier cannot also wait for the new one.
  const dependents = (ctx.graph.dependents.get(tier) ?? []).filter((d) => d !== r.installer.tier);
  const beforeInstaller = transitiveDeps(ctx.graph, r.installer.tier);
  const blocked = dependents.filter((d) => beforeInstaller.has(d) || d === r.installer.tier);
  if (blocked.length > 0) throw new UnsafeEdit(`${blocked.join(', ')} depend${blocked.length === 1 ? 's' : ''} on ${tier} and must run before ${r.installer.tier}, so ${blocked.length === 1 ? 'it' : 'they'} cannot wait for the moved resources`);

  // Move the resources' documents: whole files, or the documents out of a file that keeps others.
  const byFile = new Map<string, RenderedObject[]>();
  for (const o of r.objects) byFile.set(o.origin.file, [...(byFile.get(o.origin.file) ?? []), o]);
  const listed: string[] = [];
  // What the kustomizations between the old tier and a moved file do to it must hold in the new folder too.
  const namespaces = new Set([...byFile.keys()].map((f) => carriedOver(files, r.kustomizationFiles, f, old.repoPath!)));
  if (namespaces.size > 1) throw new UnsafeEdit(`the moved files get different namespaces from the kustomizations that list them (${[...namespaces].map((n) => n ?? 'none').join(', ')})`);
  const namespace = [...namespaces][0] ?? null;
  for (const [file, objs] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
    const target = `${folder}/${uniqueBase(path.basename(file), listed)}`;
    listed.push(path.basename(target));
    moveDocuments(files, file, objs, target, r, old, out);
  }
  files.set(`${folder}/kustomization.yaml`, newFolderKustomization(r, newKey, listed, files.text(old.origin.file) ?? '', namespace));
  out.changes.push(change(r, `${folder}/kustomization.yaml`, `new tier folder ${folder} listing ${listed.join(', ')}`, `the moved resources are applied by ${newKey} only`));

  // The new Flux Kustomization, next to the old one's definition.
  const newDoc = newKustomizationDoc(oldSlice, oldValue, name, newPath, r);
  const oldFile = old.origin.file;
  if (path.basename(oldFile).replace(/\.ya?ml$/, '') === old.name) {
    const file = `${path.dirname(oldFile)}/${name}${path.extname(oldFile)}`;
    if (files.has(file)) throw new UnsafeEdit(`${file} exists already`);
    files.set(file, newDoc);
    const refs = referencesTo(files, r.kustomizationFiles, oldFile);
    for (const ref of refs) {
      const doc = files.docAt(ref.file, null, (v) => Array.isArray(v.resources));
      files.replaceDoc(ref.file, doc.slice, appendItem(doc.slice.text, ['resources'], path.relative(path.dirname(ref.file), file), path.relative(path.dirname(ref.file), file)));
      out.changes.push(change(r, ref.file, `lists ${path.basename(file)}`, `so the root sync applies ${newKey} where it applies ${tier}`));
    }
    out.changes.push(change(r, file, `new Flux Kustomization ${newKey} (path ${newPath}, dependsOn ${r.installer.tier}, taking over ${tier}'s ${takenOver(oldSpec)})`, why(r)));
  } else {
    const current = files.text(oldFile)!;
    const at = files.docAt(oldFile, old.origin.line, (v) => v.kind === 'Kustomization' && (v.metadata as { name?: string })?.name === old.name).slice;
    files.set(oldFile, `${current.slice(0, at.end).replace(/\n*$/, '\n')}---\n${newDoc.replace(/\n*$/, '\n')}${current.slice(at.end).replace(/^\n*(?=---)/, '')}`);
    out.changes.push(change(r, oldFile, `new Flux Kustomization ${newKey} after ${tier}'s (path ${newPath}, dependsOn ${r.installer.tier}, taking over ${tier}'s ${takenOver(oldSpec)})`, why(r)));
  }

  // What makes the CRD exist must be healthy before the new tier runs: dependsOn is revision-gated, so wait: true on
  // the installer's tier means its resources were applied AND healthy (the operator reconciled them).
  if (r.installer.ready) {
    const inst = ctx.graph.nodes.get(r.installer.tier)!;
    if (setWait(files, inst)) {
      out.changes.push(change(r, inst.origin.file, `wait: true on ${inst.key}`, `the CRD appears only once ${inst.key}'s resources are healthy (an operator reconciled them, or a chart is installed); without wait, ${inst.key} is Ready as soon as it has applied and ${newKey} could run before the CRD exists`));
    } else {
      out.notes.push(`${inst.key} already has wait: true, and ${newKey} relies on it: the CRD appears only once ${inst.key}'s resources are healthy, and dependsOn waits for exactly that only with wait. Keep it.`);
    }
  }

  // Every tier that depended on the old tier keeps its guarantee: it now also waits for the moved resources.
  for (const d of dependents.sort()) {
    const ks = ctx.graph.nodes.get(d)!;
    if (addDependsOn(files, ks, newKey)) {
      out.changes.push(change(r, ks.origin.file, `dependsOn ${name} on ${d}`, `${d} depended on ${tier}, which applied ${describe(r.objects)}; without this it could run before they exist`));
    }
  }

  const objects = r.objects.map((o) => refKey(o));
  out.repaired.push(...r.problems);
  out.moves.push({ cluster: ctx.cluster.name, from: tier, to: newKey, objects });
  if (old.prune) out.costs.push(pruneCost(ctx, old, newKey, objects, dependents));
}

function newNames(r: NewTierRepair, old: FluxKustomization, files: RepoFiles): { name: string; folder: string } {
  const groups = [...new Set(r.objects.map((o) => groupOf(o.apiVersion)))];
  // The group's first label names what moved (cdi.kubevirt.io -> cdi); when the old name already says it
  // (monitoring -> monitoring-monitoring), or the resources are of several groups, `crs`.
  const label = groups.length === 1 ? groups[0]!.split('.')[0]! : 'crs';
  const base = (r.suffix ?? (old.name.split('-').includes(label) ? 'crs' : label)).toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'crs';
  const taken = new Set(r.ctx.cluster.kustomizations.map((k) => k.key));
  for (let i = 1; i < 100; i++) {
    const suffix = i === 1 ? base : `${base}-${i}`;
    // kustomize-controller writes the name into a label value on everything it applies: 63 characters at most.
    const name = `${old.name.slice(0, 62 - suffix.length)}-${suffix}`;
    const folder = `${old.repoPath!.replace(/\/+$/, '')}-${suffix}`;
    if (!taken.has(ksKey(old.namespace, name)) && !files.has(folder)) return { name, folder };
  }
  throw new UnsafeEdit(`no free name for a new tier beside ${old.key}`);
}

const uniqueBase = (base: string, used: string[]): string => {
  if (!used.includes(base)) return base;
  const ext = path.extname(base);
  for (let i = 2; ; i++) if (!used.includes(`${base.slice(0, -ext.length || undefined)}-${i}${ext}`)) return `${base.slice(0, -ext.length || undefined)}-${i}${ext}`;
};

/** Moves the documents of `objs` from `file` to `target`: the whole file when nothing else is in it. */
function moveDocuments(files: RepoFiles, file: string, objs: RenderedObject[], target: string, r: NewTierRepair, old: FluxKustomization, out: Out): void {
  const docs = files.docs(file);
  const slices = new Set<DocSlice>();
  for (const o of objs) {
    const same = (v: Record<string, unknown>) => v.kind === o.kind && (v.metadata as { name?: string } | undefined)?.name === o.name;
    const at = files.docAt(file, o.origin.line, same);
    slices.add(docs.find((d) => d.start === at.slice.start)!);
  }
  const rest = docs.filter((d) => !slices.has(d) && hasContent(d));
  const refs = referencesTo(files, r.kustomizationFiles, file);
  if (refs.length > 1) throw new UnsafeEdit(`${file} is listed by ${refs.map((x) => x.file).join(' and ')}: moving it would change the others`);
  const objects = describe(objs);
  if (rest.length === 0) {
    files.set(target, files.text(file)!);
    files.delete(file);
    const ref = refs[0];
    if (ref) {
      const doc = files.docAt(ref.file, null, (v) => Array.isArray(v.resources));
      files.replaceDoc(ref.file, doc.slice, removeItems(doc.slice.text, ['resources'], (x) => x === ref.entry));
      out.changes.push(change(r, ref.file, `no longer lists ${ref.entry}`, `${objects} move${objs.length === 1 ? 's' : ''} out of ${old.key}`));
    } else if (!underDir(file, old.repoPath!)) {
      throw new UnsafeEdit(`${file} is applied by ${old.key} but no kustomization file lists it`);
    }
    out.changes.push(change(r, target, `moved from ${file}`, `${objects} leave${objs.length === 1 ? 's' : ''} ${old.key}: ${why(r)}`));
    return;
  }
  if (refs.length === 0 && !underDir(file, old.repoPath!)) throw new UnsafeEdit(`${file} is applied by ${old.key} but no kustomization file lists it`);
  const text = files.text(file)!;
  const moved = docs.filter((d) => slices.has(d)).map((d) => d.text.replace(/\n*$/, '\n'));
  files.set(target, moved.join('---\n'));
  // What stays: every other document, with its separator.
  let kept = '';
  let last = 0;
  for (const d of docs) {
    if (!slices.has(d)) continue;
    kept += text.slice(last, d.start);
    last = d.end;
    // Drop the separator line after the moved document (or before it, for the last one).
    const sep = /^(---|\.\.\.)[^\n]*\n?/.exec(text.slice(last));
    if (sep) last += sep[0].length;
    else kept = kept.replace(/(^|\n)(---|\.\.\.)[^\n]*\n?$/, '$1');
  }
  files.set(file, kept + text.slice(last));
  out.changes.push(change(r, target, `${objects} split out of ${file}`, `${objs.length === 1 ? 'it leaves' : 'they leave'} ${old.key}: ${why(r)}`));
}

const underDir = (file: string, dir: string): boolean => file.startsWith(`${dir.replace(/\/+$/, '')}/`);

function newFolderKustomization(r: NewTierRepair, newKey: string, listed: string[], oldText: string, namespace: string | null): string {
  const indent = ' '.repeat(seqIndent(oldText));
  return [
    `# Tier ${parseKsKey(newKey).name} (dependsOn: ${parseKsKey(r.installer.tier).name}): ${describe(r.objects)}, whose CRD exists only`,
    `# once ${r.installer.tier} ${r.installer.ready ? 'is healthy' : 'has applied'}. Flux dry-runs every object of a tier before applying any, so`,
    `# they cannot share a tier with what makes their CRD exist.`,
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    ...(namespace ? [`namespace: ${namespace}`] : []),
    'resources:',
    ...listed.map((f) => `${indent}- ${f}`),
    '',
  ].join('\n');
}

const seqIndent = (text: string): number => {
  const m = /^([ ]*)[^\s#-][^\n]*:[ ]*\n([ ]*)- /m.exec(text);
  return m ? Math.max(0, m[2]!.length - m[1]!.length) : 2;
};

/** The new Flux Kustomization's document: the old one's, keeping the fields it takes over in their order and style. */
function newKustomizationDoc(oldSlice: DocSlice, oldValue: Record<string, unknown>, name: string, newPath: string, r: NewTierRepair): string {
  // The old one's leading comments describe the old tier: the new one gets its own header instead.
  const doc = parseDocument(oldSlice.text.replace(/^(?:[ \t]*(?:#[^\n]*)?\n)*/, ''), { uniqueKeys: false });
  doc.commentBefore = null;
  if (doc.contents && 'commentBefore' in doc.contents) (doc.contents as { commentBefore?: string | null }).commentBefore = null;
  doc.set('apiVersion', r.kustomizationApi(String(oldValue.apiVersion)));
  const meta = doc.get('metadata', true);
  if (!isMap(meta)) throw new UnsafeEdit('the old Kustomization has no metadata map');
  for (const p of [...meta.items]) {
    const k = String((p.key as { value?: unknown }).value);
    if (k !== 'name' && k !== 'namespace' && k !== 'labels') meta.delete(k);
  }
  meta.set('name', name);
  const spec = doc.get('spec', true);
  if (!isMap(spec)) throw new UnsafeEdit('the old Kustomization has no spec map');
  for (const p of [...spec.items]) {
    const k = String((p.key as { value?: unknown }).value);
    if (!TAKEN_OVER.includes(k) && k !== 'path') spec.delete(k);
  }
  spec.set('path', newPath);
  const { name: dep, namespace } = parseKsKey(r.installer.tier);
  spec.set('dependsOn', doc.createNode([parseKsKey(r.tier).namespace === namespace ? { name: dep } : { name: dep, namespace }]));
  const header = `# ${describe(r.objects)}: their CRD exists only once ${r.installer.tier} ${r.installer.ready ? 'is healthy' : 'has applied'}, so they\n# are applied here, after it (written by \`standup fix\`; ${parseKsKey(r.tier).name} applied them before).\n`;
  return header + doc.toString({ lineWidth: 0, indentSeq: seqIndent(oldSlice.text) > 0 });
}

function takenOver(spec: Record<string, unknown>): string {
  const keys = TAKEN_OVER.filter((k) => k in spec && k !== 'wait');
  return keys.length ? keys.join(', ') : 'settings';
}

function describe(objs: RenderedObject[]): string {
  const ids = objs.map((o) => refKey(o));
  return ids.length <= 3 ? ids.join(', ') : `${ids.slice(0, 2).join(', ')} and ${ids.length - 2} more`;
}

function why(r: NewTierRepair): string {
  return r.installer.tier === r.tier
    ? `their CRD exists only after ${r.tier} ${r.installer.ready ? 'is healthy' : 'has applied'}, and Flux dry-runs a whole tier before applying any of it, so in ${r.tier} they deadlock it`
    : `their CRD comes from ${r.installer.tier}, which can only run after ${r.tier}, so in ${r.tier} they deadlock both`;
}

function change(r: NewTierRepair, file: string, what: string, whyText: string) {
  return { code: 'runtime-crd' as const, cluster: r.ctx.cluster.name, object: r.problems[0]?.object ?? null, file, what, why: whyText };
}

/** What the move costs on a live cluster where the old tier prunes: the resources are deleted, then applied again. */
function pruneCost(ctx: PlanContext, old: FluxKustomization, to: string, objects: string[], dependents: string[]) {
  const timeout = old.timeout ?? 'its timeout';
  const message =
    `${old.key} has prune: true: when it reconciles the commit with this move, it deletes ${objects.join(', ')}, and ` +
    `${to} applies them again only after ${old.key} is Ready at that commit (its health checks${old.wait ? `, up to ${timeout}` : ''}) and ` +
    `kustomize-controller looks at ${to} (its --requeue-dependency, 30s by default, unless standup resume asks at once). ` +
    `In that window the resources do not exist${dependents.length ? `; ${dependents.join(', ')} already in the cluster keep running on what they found` : ''}, ` +
    `and an operator may recreate them with its defaults. To avoid it, merge with prune: false on ${old.name} (or label the moved ` +
    `resources kustomize.toolkit.fluxcd.io/prune: disabled), check that their label kustomize.toolkit.fluxcd.io/name says ` +
    `${parseKsKey(to).name}, then restore prune: true. Merge only while ${old.key} is Ready on the cluster: if it is not, ` +
    `the resources stay deleted until it recovers.`;
  return { cluster: ctx.cluster.name, from: old.key, to, objects, dependents, message };
}
