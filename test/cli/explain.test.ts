import { describe, expect, it } from 'vitest';
import { CODE_HELP } from '../../src/lint/codes.js';
import { PROBLEM_CODES } from '../../src/model/problem.js';
import { renderProblemsSarif } from '../../src/ui/problems-sarif.js';
import { cli } from './run.js';

describe('standup explain', () => {
  it('a code: its summary, what it means and an example of the fix', async () => {
    const r = await cli('explain', 'runtime-crd');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`runtime-crd: ${CODE_HELP['runtime-crd'].summary}`);
    expect(r.stdout).toContain('Example of the fix:');
    expect(r.stdout).toContain('dependsOn: [{name: platform-config}]');
  });

  it('no code: every code with its summary', async () => {
    const r = await cli('explain');
    expect(r.stdout.trim().split('\n')).toHaveLength(PROBLEM_CODES.length);
  });

  it('an unknown code is exit 2 with the near one', async () => {
    const r = await cli('explain', 'runtim');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown problem code "runtim"');
    expect(r.stderr).toContain('Did you mean runtime-crd?');
  });

  it('SARIF rules point at the list of codes and carry the example in their Markdown help', () => {
    const rule = JSON.parse(renderProblemsSarif([], [], '0.1.0')).runs[0].tool.driver.rules.find((x: { id: string }) => x.id === 'cycle');
    expect(rule.helpUri).toBe('https://github.com/standup-cli/standup/blob/v0.1.0/README.md#problem-codes');
    expect(rule.help.markdown).toContain('standup explain cycle');
  });
});
