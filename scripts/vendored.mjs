// Packages bundled into dist/vendor by `npm run build` (scripts/vendor-client-node.mjs): not dependencies of the
// published package (scripts/pack-manifest.mjs), and nothing only they need is in its shrinkwrap (shrinkwrap.mjs).
export const VENDORED = ['@kubernetes/client-node', '@bufbuild/cel', '@bufbuild/protobuf'];
