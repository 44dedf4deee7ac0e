import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/repo/tiers-yaml-parser.js';
import { CONFIG_FILE } from '../../src/repo/tiers-yaml.js';
import { ConfigError } from '../../src/model/errors.js';

function errorOf(text: string): ConfigError {
  try {
    parseConfig(text, CONFIG_FILE);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('tiers.yaml', () => {
  it('parses a valid file and applies the schema defaults', () => {
    const c = parseConfig('clusters:\n  dev:\n    path: clusters/dev\n    context: kind-dev\n', CONFIG_FILE);
    expect(c.clusters.dev).toMatchObject({ path: 'clusters/dev', context: 'kind-dev', resettable: false });
  });

  it('names an unknown key with file:line:col pointing at the key', () => {
    const e = errorOf('clusters:\n  dev:\n    path: clusters/dev\n    resetable: true\n');
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('tiers.yaml:4:5: clusters.dev: unknown key "resetable" (did you mean "resettable"?)');
  });

  it('an unknown key with no near name lists the keys that place takes', () => {
    const e = errorOf('clusters:\n  dev:\n    path: clusters/dev\n    colour: red\n');
    expect(e.message).toMatch(/unknown key "colour" \(known keys: path, context, .*resettable.*\)/);
  });

  it('a value outside a list names the allowed values and the near one', () => {
    const e = errorOf('platform: talso\n');
    expect(e.message).toContain('tiers.yaml:1:11: platform: "talso" is not allowed: use one of talos, k3s, rke2, openshift, gke, eks, aks (did you mean talos?)');
  });

  it('names a wrong type with the path and the value position', () => {
    const e = errorOf('clusters:\n  dev:\n    path: clusters/dev\n    resettable: "yes"\n');
    expect(e.message).toMatch(/tiers\.yaml:4:17: clusters\.dev\.resettable: .*expected boolean/);
  });

  it('collects every issue at once', () => {
    const e = errorOf('clusters:\n  dev:\n    path: 7\n    colour: red\ntimeouts:\n  default: soon\nexclude: [x]\n');
    const lines = e.message.split('\n').filter((l) => l.includes('tiers.yaml:'));
    expect(lines).toHaveLength(4);
    expect(e.message).toContain('tiers.yaml:3:11: clusters.dev.path:');
    expect(e.message).toContain('tiers.yaml:4:5: clusters.dev: unknown key "colour"');
    expect(e.message).toContain('tiers.yaml:6:12: timeouts.default:');
    expect(e.message).toContain('tiers.yaml:7:11: exclude[0]:');
  });

  it('reports malformed YAML with its position', () => {
    const e = errorOf('clusters:\n  dev:\n    path: [unclosed\n');
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toMatch(/tiers\.yaml:\d+:\d+: /);
  });
});
