import { yamlLibrary } from '../model/yaml-library.js';

// The yaml library only for -o yaml, loaded on first use: -o json and text output never need it.
const stringify = (doc: unknown, options: object): string => yamlLibrary().stringify(doc, options);

/** The machine-readable formats: every command that prints JSON prints the same document as YAML. */
export type DataFormat = 'json' | 'yaml';
export const DATA_FORMATS = ['json', 'yaml'] as const;
export const isDataFormat = (f: string): f is DataFormat => f === 'json' || f === 'yaml';

// YAML as people and yq read it: no anchors for objects that happen to be shared, no folding of long messages, and
// YAML 1.1's booleans quoted (`"yes"`, `"on"`) so that 1.1 readers (PyYAML, kubectl) see the same strings.
const YAML_OPTIONS = { aliasDuplicateObjects: false, lineWidth: 0, version: '1.1' } as const;

/** One document: pretty JSON, or YAML. Always ends with a newline. */
export function renderDocument(format: DataFormat, doc: unknown): string {
  return format === 'json' ? JSON.stringify(doc, null, 2) + '\n' : stringify(doc, YAML_OPTIONS);
}

/** One document of a stream (run events, `status --watch`): a JSON line, or a YAML document opened by `---`. */
export function renderStreamDocument(format: DataFormat, doc: unknown): string {
  return format === 'json' ? JSON.stringify(doc) + '\n' : '---\n' + stringify(doc, YAML_OPTIONS);
}
