// Packs one static binary into an OCI image archive (what `ctr images import` reads), with no registry and no
// Docker: oci-layout, index.json (image name annotations), a config blob, a manifest blob and one layer. The layer
// is an uncompressed tar (a valid OCI layer media type), so packing costs a copy, not minutes of gzip.
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { tarHeader } from '../tar.js';

export interface ImageSpec {
  /** Full reference, e.g. ghcr.io/fluxcd/source-controller:v1.9.3. */
  ref: string;
  /** The static binary; it becomes /<entrypoint name> in the image. */
  binary: string;
  /** Name of the binary inside the image (default: the file's basename). */
  entrypoint?: string;
  /** Image config User, e.g. "65534:65534" for images whose pods set runAsNonRoot (Flux's). */
  user?: string;
  /** Extra empty directories in the image (e.g. tmp, home). */
  dirs?: string[];
  /** Host directory trees copied into the image: `{from: host dir, to: path in the image}` (files 0644, dirs 0755). */
  trees?: { from: string; to: string }[];
  /** Small files written into the image: path inside it, and content. */
  files?: { path: string; data: string }[];
}

const BLOCK = 512;

/** A tar writer over a file descriptor that hashes everything it writes. */
class TarFile {
  private readonly fd: number;
  private readonly hash = createHash('sha256');
  size = 0;
  constructor(file: string) {
    this.fd = openSync(file, 'w');
  }
  private write(b: Buffer) {
    writeSync(this.fd, b);
    this.hash.update(b);
    this.size += b.length;
  }
  dir(name: string, mode = 0o755) {
    this.write(tarHeader(name.endsWith('/') ? name : `${name}/`, 0, mode, '5'));
  }
  bytes(name: string, data: Buffer, mode = 0o644) {
    this.write(tarHeader(name, data.length, mode, '0'));
    this.write(data);
    this.pad(data.length);
  }
  async file(name: string, src: string, mode = 0o755) {
    const size = statSync(src).size;
    this.write(tarHeader(name, size, mode, '0'));
    for await (const chunk of createReadStream(src, { highWaterMark: 1 << 20 })) this.write(chunk as Buffer);
    this.pad(size);
  }
  private pad(n: number) {
    const r = n % BLOCK;
    if (r) this.write(Buffer.alloc(BLOCK - r));
  }
  /** Two zero blocks end the archive; returns the sha256 of the whole file. */
  close(): string {
    this.write(Buffer.alloc(BLOCK * 2));
    closeSync(this.fd);
    return this.hash.digest('hex');
  }
}

/** A host directory into the layer, in sorted order so the same tree always packs to the same digest. */
async function addTree(layer: TarFile, from: string, to: string): Promise<void> {
  layer.dir(to);
  for (const e of readdirSync(from, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.isDirectory()) await addTree(layer, path.join(from, e.name), `${to}/${e.name}`);
    else if (e.isFile()) await layer.file(`${to}/${e.name}`, path.join(from, e.name), 0o644);
  }
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Writes `<outDir>/<ref as a file name>.tar` unless it exists (images are cached next to the binaries they were made
 * from, which never change under one cache key). Returns the archive's path.
 */
export async function ociArchive(spec: ImageSpec, outDir: string): Promise<string> {
  const out = path.join(outDir, `${spec.ref.replace(/[^A-Za-z0-9._-]+/g, '_')}.tar`);
  if (existsSync(out)) return out;
  mkdirSync(outDir, { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  const layerFile = `${out}.${process.pid}.layer`;
  try {
    const entry = spec.entrypoint ?? path.basename(spec.binary);
    const layer = new TarFile(layerFile);
    for (const d of spec.dirs ?? []) layer.dir(d, d === 'tmp' ? 0o1777 : 0o755);
    for (const t of spec.trees ?? []) await addTree(layer, t.from, t.to);
    for (const f of spec.files ?? []) layer.bytes(f.path, Buffer.from(f.data));
    await layer.file(entry, spec.binary, 0o755);
    const layerDigest = layer.close();
    const layerSize = layer.size;

    const config = Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: { Entrypoint: [`/${entry}`], Env: ['PATH=/'], WorkingDir: '/', ...(spec.user ? { User: spec.user } : {}) },
        rootfs: { type: 'layers', diff_ids: [`sha256:${layerDigest}`] },
      }),
    );
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: `sha256:${sha(config)}`, size: config.length },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: `sha256:${layerDigest}`, size: layerSize }],
      }),
    );
    const tag = spec.ref.slice(spec.ref.lastIndexOf(':') + 1);
    const index = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        manifests: [
          {
            mediaType: 'application/vnd.oci.image.manifest.v1+json',
            digest: `sha256:${sha(manifest)}`,
            size: manifest.length,
            platform: { architecture: 'amd64', os: 'linux' },
            annotations: { 'io.containerd.image.name': spec.ref, 'org.opencontainers.image.ref.name': tag },
          },
        ],
      }),
    );

    const tar = new TarFile(tmp);
    tar.bytes('oci-layout', Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' })));
    tar.bytes('index.json', index);
    tar.dir('blobs');
    tar.dir('blobs/sha256');
    tar.bytes(`blobs/sha256/${sha(config)}`, config);
    tar.bytes(`blobs/sha256/${sha(manifest)}`, manifest);
    await tar.file(`blobs/sha256/${layerDigest}`, layerFile, 0o644);
    tar.close();
    renameSync(tmp, out);
    return out;
  } finally {
    rmSync(tmp, { force: true });
    rmSync(layerFile, { force: true });
  }
}
