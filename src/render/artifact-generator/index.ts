// ArtifactGenerator (source.extensions.fluxcd.io/v1beta1): which files each generated ExternalArtifact holds.
// Mirrors fluxcd/source-watcher at 825fa15 (v2.2.1); each file names the Go files and functions it follows:
//   spec.ts        CRD schema and validateSpec
//   plan.ts        internal/builder copy operations (Merge / Extract reported, not mirrored)
//   source-tree.ts an alias's source artifact as the copy operations read it (ReadDir order, lstat, io/fs.Glob)
//   paths.ts       Go path helpers, calculateGlobDestination, sourceSelectionRoot
//   go-match.ts    Go's path.Match, for a glob `from`
//   doublestar.ts  doublestar v4.10.0 Match, for `exclude`; shouldExcludePath, shouldExclude
export { materializeArtifact, planArtifact } from './plan.js';
export { parseGenerator, type ArtifactCopy, type GeneratedArtifact, type GeneratorSpec } from './spec.js';
