import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { gitEnv } from './git-repos.js';

export type ControlHandler = (req: IncomingMessage) => Promise<unknown>;

export interface HttpServer {
  readonly port: number;
  readonly baseUrl: string;
  close(): Promise<void>;
}

/**
 * One loopback HTTP server for three things:
 *  - git smart HTTP: every other path goes to `git http-backend` (CGI). Flux's
 *    go-git v5 speaks only the smart protocol, so a static file server won't do.
 *  - `/-/<name>` control routes, so test workers can ask the host process to
 *    act (e.g. restart kube-apiserver). `-` cannot start a repo name.
 *  - `/charts/<repo>/...`: Helm chart repositories (index.yaml and .tgz files
 *    under `chartsRoot`, written by charts.ts), read by source-controller.
 */
export async function startHttpServer(
  gitRoot: string,
  controls: Record<string, ControlHandler>,
  port = 0,
  chartsRoot?: string,
  /** More addresses to serve on, with the same port (a node's link address, so pods reach git and charts). */
  moreHosts: string[] = [],
): Promise<HttpServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/-/')) {
      void control(url.pathname.slice(3), req, res);
      return;
    }
    if (chartsRoot && url.pathname.startsWith('/charts/')) {
      staticFile(chartsRoot, decodeURIComponent(url.pathname.slice('/charts/'.length)), res);
      return;
    }
    gitBackend(gitRoot, url, req, res);
  });

  async function control(name: string, req: IncomingMessage, res: ServerResponse) {
    const handler = controls[name];
    if (!handler) {
      res.writeHead(404).end(`no control route ${name}\n`);
      return;
    }
    try {
      const out = await handler(req);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out ?? {}));
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(e instanceof Error ? e.message : String(e));
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const actual = addr && typeof addr === 'object' ? addr.port : port;
  const extra = await Promise.all(
    moreHosts.map(
      (h) =>
        new Promise<http.Server>((resolve, reject) => {
          const s = http.createServer((req, res) => server.emit('request', req, res));
          s.once('error', reject);
          s.listen(actual, h, () => resolve(s));
        }),
    ),
  );
  const closeOne = (s: http.Server) =>
    new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    });
  return {
    port: actual,
    baseUrl: `http://127.0.0.1:${actual}`,
    close: async () => {
      await Promise.all([server, ...extra].map(closeOne));
    },
  };
}

function staticFile(root: string, rel: string, res: ServerResponse) {
  const file = path.resolve(root, rel);
  if (!file.startsWith(root + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${rel}\n`);
    return;
  }
  const type = file.endsWith('.yaml') ? 'application/x-yaml' : file.endsWith('.tgz') ? 'application/gzip' : 'application/octet-stream';
  res.writeHead(200, { 'content-type': type, 'content-length': statSync(file).size });
  createReadStream(file).pipe(res);
}

function gitBackend(root: string, url: URL, req: IncomingMessage, res: ServerResponse) {
  const h = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v.join(', ') : (v ?? '');
  };
  const env: NodeJS.ProcessEnv = {
    ...gitEnv(),
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ''),
    REQUEST_METHOD: req.method ?? 'GET',
    CONTENT_TYPE: h('content-type'),
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    REMOTE_USER: 'testbed',
    // Let people `git push` over HTTP to a served repo (the testbed CLI case);
    // http-backend refuses receive-pack otherwise.
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_1: 'http.receivepack',
    GIT_CONFIG_VALUE_1: 'true',
  };
  if (h('content-length')) env.CONTENT_LENGTH = h('content-length');
  if (h('content-encoding')) env.HTTP_CONTENT_ENCODING = h('content-encoding');
  if (h('git-protocol')) env.GIT_PROTOCOL = h('git-protocol');

  const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  req.pipe(cgi.stdin);
  cgi.stdin.on('error', () => {}); // backend may exit before reading everything
  let stderr = '';
  cgi.stderr.on('data', (c: Buffer) => (stderr += c.toString()));

  // CGI output: headers, a blank line, then the body to stream through.
  let head = Buffer.alloc(0);
  let headersDone = false;
  cgi.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    let end = head.indexOf('\r\n\r\n');
    let sepLen = 4;
    if (end < 0) {
      end = head.indexOf('\n\n');
      sepLen = 2;
    }
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
      const i = line.indexOf(':');
      if (i < 0) continue;
      const k = line.slice(0, i).trim();
      const v = line.slice(i + 1).trim();
      if (k.toLowerCase() === 'status') status = Number.parseInt(v, 10) || 500;
      else headers[k] = v;
    }
    res.writeHead(status, headers);
    const rest = head.subarray(end + sepLen);
    if (rest.length) res.write(rest);
  });
  cgi.on('close', (code) => {
    if (!headersDone) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`git http-backend exited ${code}: ${stderr}`);
      return;
    }
    res.end();
  });
  cgi.on('error', (e) => {
    if (!res.headersSent) res.writeHead(500).end(String(e));
    else res.destroy(e);
  });
}
