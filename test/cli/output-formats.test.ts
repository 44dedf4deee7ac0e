import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { renderDocument, renderStreamDocument } from '../../src/cli/options.js';
import { COMMANDS, formatsHelp } from '../../src/cli/program.js';
import { jsonReporter } from '../../src/ui/reporters/json.js';
import { cli, PROJECT } from './run.js';

// -o as kubectl and flux take it, and -o yaml as the same document as -o json wherever -o json exists.
describe('-o spellings', () => {
  it.each([
    [['-o', 'json']],
    [['-ojson']],
    [['-o=json']],
    [['--output', 'json']],
    [['--output=json']],
  ])('plan %j prints the JSON document', async (flag) => {
    const r = await cli('plan', '--cluster', 'dev', ...flag);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).clusters[0].name).toBe('dev');
  });

  it('-o= with an unknown format still names the format, not "=svg"', async () => {
    const r = await cli('plan', '-o=svg');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown output format "svg"');
  });
});

describe('-o yaml is the -o json document', () => {
  const lint = (name: string) => path.join(PROJECT, 'test/fixtures/lint', name);
  it.each([
    ['plan', ['plan']],
    ['plan of some Kustomizations', ['plan', 'apps', '-n', 'flux-system']],
    ['graph', ['graph', '--cluster', 'dev']],
    ['check with problems', ['check', '--repo', lint('cycle')]],
    ['diff between two clusters', ['diff', '--repo', lint('cluster-drift'), '--cluster', 'dev', '--cluster', 'prod']],
    ['version --client', ['version', '--client']],
  ])('%s', async (_name, args) => {
    const json = await cli(...args, '-o', 'json');
    const yaml = await cli(...args, '-o', 'yaml');
    expect(yaml.code).toBe(json.code);
    const doc = JSON.parse(json.stdout);
    expect(parse(yaml.stdout)).toEqual(doc);
    // Read as YAML 1.1 too (PyYAML, kubectl): strings such as "yes" or "0755" must stay strings.
    expect(parse(yaml.stdout, { version: '1.1' })).toEqual(doc);
  });

  it('keeps 1.1 booleans and octal-looking strings quoted, and never writes anchors for shared objects', () => {
    const shared = { a: 1 };
    const doc = { x: shared, y: shared, s: 'yes', o: 'on', n: '0755', long: 'word '.repeat(40) };
    const text = renderDocument('yaml', doc);
    expect(text).not.toMatch(/[&*]a\d/);
    expect(parse(text, { version: '1.1' })).toEqual(doc);
    expect(text.split('\n').find((l) => l.startsWith('long:'))!.length).toBeGreaterThan(200);
  });

  it('the run events of up/resume/crds/reset: one YAML document per event, the same as the JSON lines', () => {
    const events = [{ type: 'plan', cluster: 'dev', steps: [] }, { type: 'run-end', ok: true, exitCode: 0, message: 'done: yes' }];
    let json = '';
    let yaml = '';
    const j = jsonReporter((s) => (json += s));
    const y = jsonReporter((s) => (yaml += s), 'yaml');
    for (const e of events) {
      j.onEvent(e as never);
      y.onEvent(e as never);
    }
    expect(json.trim().split('\n').map((l) => JSON.parse(l))).toEqual(events);
    expect(parseAllDocuments(yaml).map((d) => d.toJS())).toEqual(events);
    expect(renderStreamDocument('yaml', events[0])).toMatch(/^---\n/);
  });
});

describe('what -o accepts, per command', () => {
  // Each command's definition lists its formats: completion offers them, and the command's own error lists what it accepts.
  const formats = COMMANDS.filter((c) => c.formats).map((c) => [c.name, c.formats!] as const);

  it('every command that prints something takes -o', () => {
    expect(formats.map(([name]) => name)).toEqual(['plan', 'graph', 'check', 'fix', 'diff', 'up', 'resume', 'crds', 'status', 'reset', 'version']);
  });

  it('the program\'s -o help sums them up', () => {
    expect(formatsHelp(COMMANDS)).toBe('text, json, yaml; plan also wide, markdown; graph also mermaid, dot; diff also markdown; status also wide');
  });

  it.each(formats)('%s: completion offers exactly what the command accepts', async (command, formats) => {
    const r = await cli(command, '-o', 'no-such-format', ...(command === 'diff' ? ['--from', 'HEAD'] : []));
    expect(r.code).toBe(2);
    const accepted = /Use one of: (.*)\./.exec(r.stderr)?.[1]?.split(', ');
    expect(accepted?.sort()).toEqual([...formats].sort());
  });
});
