// Helm chart repositories the tests make themselves: a chart is a tar.gz of Chart.yaml, values.yaml and templates/,
// the repository an index.yaml beside the archives, served by the testbed's HTTP server at
// `<gitBaseUrl>/charts/<repo>` (no helm binary anywhere). Works from any process: it only writes files.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { APP_IMAGE } from './node/images.js';
import { tgz } from './tar.js';

export interface ChartSpec {
  name: string;
  version: string;
  appVersion?: string;
  values?: Record<string, unknown>;
  /** File name under templates/ -> Helm template text. */
  templates: Record<string, string>;
}

interface IndexEntry {
  apiVersion: 'v2';
  name: string;
  version: string;
  appVersion?: string;
  urls: string[];
  digest: string;
  created: string;
}

export const chartsRoot = (testbedDir: string): string => path.join(testbedDir, 'charts');
export const chartRepoUrl = (baseUrl: string, repo: string): string => `${baseUrl}/charts/${repo}`;

/** Packs the charts into `<charts root>/<repo>/` and rewrites its index.yaml (earlier charts stay). Returns the repo URL. */
export function publishCharts(o: { testbedDir: string; baseUrl: string; repo: string; charts: ChartSpec[] }): string {
  const dir = path.join(chartsRoot(o.testbedDir), o.repo);
  mkdirSync(dir, { recursive: true });
  const entriesFile = path.join(dir, 'entries.json');
  const entries: IndexEntry[] = existsSync(entriesFile) ? (JSON.parse(readFileSync(entriesFile, 'utf8')) as IndexEntry[]) : [];
  const url = chartRepoUrl(o.baseUrl, o.repo);
  for (const c of o.charts) {
    const chartYaml = stringify({ apiVersion: 'v2', name: c.name, version: c.version, appVersion: c.appVersion ?? c.version, type: 'application' });
    const files: Record<string, string> = {
      [`${c.name}/Chart.yaml`]: chartYaml,
      [`${c.name}/values.yaml`]: stringify(c.values ?? {}),
    };
    for (const [f, text] of Object.entries(c.templates)) files[`${c.name}/templates/${f}`] = text;
    const archive = tgz(files);
    const file = `${c.name}-${c.version}.tgz`;
    writeFileSync(path.join(dir, file), archive);
    const entry: IndexEntry = {
      apiVersion: 'v2',
      name: c.name,
      version: c.version,
      ...(c.appVersion ? { appVersion: c.appVersion } : {}),
      urls: [`${url}/${file}`],
      digest: createHash('sha256').update(archive).digest('hex'),
      created: new Date().toISOString(),
    };
    const i = entries.findIndex((e) => e.name === c.name && e.version === c.version);
    if (i >= 0) entries[i] = entry;
    else entries.push(entry);
  }
  writeFileSync(entriesFile, JSON.stringify(entries));
  const byName: Record<string, IndexEntry[]> = {};
  for (const e of entries) (byName[e.name] ??= []).push(e);
  // Rename, so source-controller never reads a half-written index.
  writeFileSync(path.join(dir, 'index.yaml.tmp'), stringify({ apiVersion: 'v1', entries: byName, generated: new Date().toISOString() }));
  renameSync(path.join(dir, 'index.yaml.tmp'), path.join(dir, 'index.yaml'));
  return url;
}

/**
 * A chart of the testbed's app image: a Deployment (readiness from READY_AFTER, as values) and a Service. With
 * `readyAfter: 'never'` its Deployment never becomes Available, so helm-controller's install wait fails.
 */
export function appChart(name: string, version: string, values: { replicas?: number; readyAfter?: string; message?: string } = {}): ChartSpec {
  return {
    name,
    version,
    values: { replicas: values.replicas ?? 1, readyAfter: values.readyAfter ?? '1', message: values.message ?? name },
    templates: {
      'deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels: {app: {{ .Release.Name }}}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}}
    spec:
      containers:
        - name: app
          image: ${APP_IMAGE}
          imagePullPolicy: IfNotPresent
          env:
            - {name: READY_AFTER, value: {{ .Values.readyAfter | quote }}}
            - {name: MESSAGE, value: {{ .Values.message | quote }}}
          ports: [{containerPort: 8080, name: http}]
          readinessProbe:
            httpGet: {path: /healthz, port: http}
            periodSeconds: 1
`,
      'service.yaml': `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  selector: {app: {{ .Release.Name }}}
  ports: [{port: 80, targetPort: http}]
`,
    },
  };
}
