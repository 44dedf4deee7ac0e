// A tiny read-only OCI registry on loopback serving one Helm chart archive, as helm pulls it (`helm template
// oci://127.0.0.1:PORT/charts/NAME --version V --plain-http`): the manifest by tag or digest, the chart's config and
// content blobs (the media types helm's registry client asks for). Enough for helm's pull, nothing else (no push).
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OciChartRegistry {
  /** `oci://127.0.0.1:PORT/charts/NAME` */
  ref: string;
  /** Request lines seen (`GET /v2/...`), for tests to say what helm asked. */
  requests: string[];
  close(): Promise<void>;
}

export async function serveOciChart(name: string, version: string, tgz: Buffer): Promise<OciChartRegistry> {
  const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
  const config = Buffer.from(JSON.stringify({ apiVersion: 'v2', name, version }));
  const manifest = Buffer.from(JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.cncf.helm.config.v1+json', digest: sha(config), size: config.length },
    layers: [{ mediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip', digest: sha(tgz), size: tgz.length }],
  }));
  const blobs = new Map([[sha(config), config], [sha(tgz), tgz]]);
  const requests: string[] = [];
  const server = http.createServer((q, r) => {
    requests.push(`${q.method} ${q.url}`);
    const send = (type: string, digest: string, body: Buffer) => {
      r.writeHead(200, { 'content-type': type, 'docker-content-digest': digest, 'content-length': body.length });
      r.end(q.method === 'HEAD' ? undefined : body);
    };
    const m = /^\/v2\/charts\/([^/]+)\/(manifests|blobs)\/(.+)$/.exec(q.url ?? '');
    if (q.url === '/v2/') return void r.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    if (m && m[1] === name && m[2] === 'manifests' && (m[3] === version || m[3] === sha(manifest))) return send('application/vnd.oci.image.manifest.v1+json', sha(manifest), manifest);
    if (m && m[1] === name && m[2] === 'blobs' && blobs.has(m[3]!)) return send('application/octet-stream', m[3]!, blobs.get(m[3]!)!);
    r.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"code":"NOT_FOUND","message":"not found"}]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { ref: `oci://127.0.0.1:${port}/charts/${name}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
