// Writes schema/tiers.schema.json, the JSON Schema of tiers.yaml, from the zod schema the CLI validates with
// (src/model/config.ts), so editors (yaml-language-server) check the file as standup does. Run `npm run schema` after
// changing the zod schema; test/package/schema.test.ts fails while the committed file is out of date.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { configSchema } from '../src/model/config.js';

export const SCHEMA_FILE = path.resolve(import.meta.dirname, '../schema/tiers.schema.json');

/** The schema as text, exactly as committed. */
export function tiersSchemaText(): string {
  // io 'input': what a person writes (fields with defaults are optional); draft-07: what yaml-language-server reads.
  const generated = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  const schema = {
    $schema,
    $id: 'https://unpkg.com/@standup-cli/standup/schema/tiers.schema.json',
    title: 'standup tiers.yaml',
    description: "standup's configuration in a Flux repository: clusters (entry path, pinned kube context, resettable), the CRD fallback, runtime-created CRDs, timeouts, exclusions. Generated from the zod schema standup validates with.",
    ...rest,
  };
  return JSON.stringify(schema, null, 2) + '\n';
}

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  writeFileSync(SCHEMA_FILE, tiersSchemaText());
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}`);
}
