// The chart every generated HelmRelease installs: a Deployment of the testbed's app image whose readiness probe
// passes after `readyAfter` seconds, and a Service, as most real charts have. Its objects are named `bench-<release>`
// so that a release named like one of the testbed's own workloads (joryirving has a HelmRelease kube-system/coredns;
// the node testbed runs CoreDNS there) never touches them.
import type { ChartSpec } from '../../../test/testbed/charts.js';
import { APP_IMAGE } from '../../../test/testbed/node/images.js';
import { BENCH_CHART } from './generate.js';

export function benchChart(): ChartSpec {
  return {
    name: BENCH_CHART.name,
    version: BENCH_CHART.version,
    values: { readyAfter: '1', message: 'bench' },
    templates: {
      'deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bench-{{ .Release.Name }}
  labels: {app: bench-{{ .Release.Name }}}
spec:
  replicas: 1
  selector:
    matchLabels: {app: bench-{{ .Release.Name }}}
  template:
    metadata:
      labels: {app: bench-{{ .Release.Name }}}
    spec:
      terminationGracePeriodSeconds: 1
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
  name: bench-{{ .Release.Name }}
spec:
  selector: {app: bench-{{ .Release.Name }}}
  ports: [{port: 80, targetPort: http}]
`,
    },
  };
}
