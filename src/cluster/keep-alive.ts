// client-node 1.4 builds a new https.Agent for every request (KubeConfig.applySecurityAuthentication), so every
// request opened its own TCP connection and TLS handshake: on loopback about a millisecond of latency and a few of CPU
// on both sides, for each of the hundreds of requests a run makes. The request middleware hands each request one
// keep-alive agent with the same TLS options instead (kubectl's client-go keeps its connections the same way).
import http from 'node:http';
import https from 'node:https';

/** The options an agent's connections differ by: a rotated client certificate (an exec plugin's) gets a new agent. */
const CONNECTION_OPTIONS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername', 'checkServerIdentity'] as const;

export class KeepAliveAgents {
  private current: { key: string; agent: http.Agent } | null = null;

  /** The agent to send a request with, in place of the one client-node made for it. */
  reuse(made: unknown): unknown {
    // Only client-node's plain agents: a proxy agent (socks, http(s) proxy) is left as it is.
    if (!(made instanceof http.Agent) || (made.constructor !== https.Agent && made.constructor !== http.Agent)) return made;
    const options = (made as http.Agent & { options: Record<string, unknown> }).options;
    const key = `${made.constructor === https.Agent ? 'https' : 'http'} ${JSON.stringify(CONNECTION_OPTIONS.map((k) => describe(options[k])))}`;
    if (this.current?.key !== key) {
      // The previous agent's idle connections are unref'd by Node: they neither hold the process nor serve again.
      const Kind = made.constructor as typeof https.Agent;
      this.current = { key, agent: new Kind({ ...options, keepAlive: true }) };
    }
    return this.current.agent;
  }

  /** Closes the idle connections (the end of a run). */
  close(): void {
    this.current?.agent.destroy();
    this.current = null;
  }
}

const describe = (v: unknown): unknown => (typeof v === 'function' ? v.toString() : Buffer.isBuffer(v) ? v.toString('base64') : Array.isArray(v) ? v.map(describe) : (v ?? null));
