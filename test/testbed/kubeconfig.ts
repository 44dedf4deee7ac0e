import { stringify } from 'yaml';

export const CONTEXT_NAME = 'standup-testbed';

export interface KubeconfigInput {
  server: string;
  caPem: string;
  token: string;
  contextName?: string;
  namespace?: string;
}

/** Admin kubeconfig with the CA inlined, so the file stays valid when copied. */
export function kubeconfigYaml({ server, caPem, token, contextName = CONTEXT_NAME, namespace }: KubeconfigInput): string {
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: contextName,
          cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') },
        },
      ],
      users: [{ name: `${contextName}-admin`, user: { token } }],
      contexts: [
        {
          name: contextName,
          context: { cluster: contextName, user: `${contextName}-admin`, ...(namespace ? { namespace } : {}) },
        },
      ],
      'current-context': contextName,
    },
    { version: '1.1' },
  );
}
