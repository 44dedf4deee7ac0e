import { sopsRepo } from '../test/testbed/sops.js';
import { testbedBinDir } from '../test/testbed/paths.js';
import { execFileSync } from 'node:child_process';
const s = await sopsRepo(testbedBinDir());
const out = execFileSync('sops', ['-d', `${s.repo}/examples/homelab/bootstrap/cluster-secrets.sops.yaml`], { env: { ...process.env, ...s.env }, encoding: 'utf8' });
console.log(out.includes(s.values.OAUTH2_PROXY_COOKIE_SECRET!) ? 'decrypts ok' : 'MISMATCH');
s.cleanup();
