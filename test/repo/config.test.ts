import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/repo/config.js';
import { ConfigError } from '../../src/model/errors.js';

function errorOf(text: string): ConfigError {
  try {
    parseConfig(text);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('tiers.yaml', () => {
  it('parses a valid file and applies the schema defaults', () => {
    const c = parseConfig('clusters:\n  dev:\n    path: clusters/dev\n    context: kind-dev\n');
    expect(c.clusters.dev).toMatchObject({ path: 'clusters/dev', context: 'kind-dev', resettable: false });
  });

  it('names an unknown key with file:line:col pointing at the key', () => {
    const e = errorOf('clusters:\n  dev:\n    path: clusters/dev\n    resetable: true\n');
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain('tiers.yaml:4:5: clusters.dev: unknown key "resetable"');
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
