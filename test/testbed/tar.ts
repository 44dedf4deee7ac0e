// A minimal ustar writer: enough for OCI image layers (node/oci.ts) and Helm chart archives (charts.ts), with fixed
// owner and mtime so the same input always gives the same bytes.
import { gzipSync } from 'node:zlib';

const BLOCK = 512;

export function tarHeader(name: string, size: number, mode: number, type: '0' | '5'): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  const h = Buffer.alloc(BLOCK);
  const put = (s: string, off: number, len: number) => h.write(s, off, len, 'utf8');
  const oct = (n: number, len: number) => n.toString(8).padStart(len - 1, '0') + '\0';
  put(name, 0, 100);
  put(oct(mode, 8), 100, 8);
  put(oct(0, 8), 108, 8); // uid
  put(oct(0, 8), 116, 8); // gid
  put(oct(size, 12), 124, 12);
  put(oct(0, 12), 136, 12); // mtime
  h.fill(' ', 148, 156); // checksum placeholder
  put(type, 156, 1);
  put('ustar\u000000', 257, 8);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
  return h;
}

/** A gzipped tar of in-memory files (`path -> content`), directories implied. */
export function tgz(files: Record<string, string | Buffer>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    parts.push(tarHeader(name, data.length, 0o644, '0'), data);
    const r = data.length % BLOCK;
    if (r) parts.push(Buffer.alloc(BLOCK - r));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(parts));
}
