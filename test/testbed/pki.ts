import { generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * EC P-256 key in SEC1 PEM. kube-apiserver derives the public half from it, so
 * one file serves --service-account-key-file, --service-account-signing-key-file
 * and kube-controller-manager's --service-account-private-key-file (as in
 * kubernetes test/integration/framework).
 */
export function serviceAccountKeyPem(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'sec1', format: 'pem' }).toString();
}

export const randomToken = (): string => randomBytes(24).toString('hex');

/** --token-auth-file line: token,user,uid,"group1,group2". */
export const tokenCsvLine = (token: string, user: string, groups: string[]): string =>
  `${token},${user},${user},"${groups.join(',')}"\n`;
