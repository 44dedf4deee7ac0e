import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { connect } from './test/testbed/harness.js';
import { sopsRepo } from './test/testbed/sops.js';
import { serveRepo } from './test/integration/serve.js';
import { describeAudit, readAudit } from './test/testbed/audit.js';
const st = JSON.parse(readFileSync('/tmp/standup-testbed-0/tb-ac5781/state.json', 'utf8'));
const tb = connect(st.info);
const root = '/work/wt/i24';
const sops = await sopsRepo(tb.binDir);
const NAME = 'homelab' + Date.now();
const { url } = await serveRepo(tb.git, NAME, sops.repo, `${tb.clusterGitBaseUrl}/${NAME}.git`);
writeFileSync('/tmp/i24/env.json', JSON.stringify({ repo: sops.repo, env: sops.env, url }));
const up = (...a: string[]) => execa(process.execPath, ['--import', path.join(root, 'node_modules/tsx/dist/loader.mjs'), path.join(root, 'src/cli/main.ts'), ...a, '--repo', sops.repo, '--cluster', 'dev', '--kubeconfig', tb.kubeconfigPath], { reject: false, all: true, cwd: root, env: { ...sops.env, NO_COLOR: '1', TSX_TSCONFIG_PATH: path.join(root, 'tsconfig.json') } });
for (const i of [1, 2]) {
  const t0 = new Date();
  const r = await up('up', '--source-url', url);
  const t1 = new Date();
  console.log(`=== up ${i}: exit ${r.exitCode}\n${r.all?.split('\n').slice(-25).join('\n')}`);
  console.log(readAudit(tb.auditLog, { since: t0, until: t1, mutating: true }).filter((e) => !e.requestURI.includes('dryRun=All')).map((e) => describeAudit(e) + ' ' + e.requestURI).join('\n'));
}
{
  const t0 = new Date();
  const r = await up('resume');
  const t1 = new Date();
  console.log(`=== resume: exit ${r.exitCode}\n${r.all?.split('\n').slice(-5).join('\n')}`);
  console.log(readAudit(tb.auditLog, { since: t0, until: t1, mutating: true }).filter((e) => !e.requestURI.includes('dryRun=All')).map((e) => describeAudit(e) + ' ' + e.requestURI).join('\n'));
}
