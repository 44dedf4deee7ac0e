import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApplyError, ClusterError, ClusterTimeoutError, NotFoundError, type ClusterReason } from '../../src/cluster/errors.js';
import { CliError, ConfigError, exitCodeOf, InternalError, isErrorCode } from '../../src/model/errors.js';

// One table from error code to exit code (src/model/errors.ts): every code an error is made with is in it, and a
// code has the exit code the README's "Exit codes" gives its situation.

const SRC = path.resolve(import.meta.dirname, '../../src');
const sources = readdirSync(SRC, { recursive: true }).map(String).filter((f) => f.endsWith('.ts')).map((f) => ({ file: f, text: readFileSync(path.join(SRC, f), 'utf8') }));

/** `new XError('CODE', ...`, `super('CODE', ...` and `code: 'CODE'` across src/, with where each is. */
const sites = sources.flatMap(({ file, text }) =>
  [...text.matchAll(/(?:new\s+\w*Error|super)\(\s*'([A-Z][A-Z0-9_]+)'|\bcode:\s*'([A-Z][A-Z0-9_]+)'/g)].map((m) => ({ file, code: (m[1] ?? m[2])!, at: m.index })),
);

describe('error codes', () => {
  it('every code an error is made with in src/ is in the table', () => {
    expect(sites.length).toBeGreaterThan(60);
    expect(sites.filter((s) => !isErrorCode(s.code)).map((s) => `${s.file}: ${s.code}`)).toEqual([]);
  });

  it('so is every CLUSTER_<REASON> a failed request carries', () => {
    const reasons: Record<ClusterReason, true> = {
      NotFound: true, Conflict: true, Invalid: true, NoKind: true, Forbidden: true, Unauthorized: true, Gone: true, Timeout: true, Unreachable: true, Aborted: true, Other: true,
    };
    for (const r of Object.keys(reasons)) expect(isErrorCode(new ClusterError(r as ClusterReason, 'm').code), r).toBe(true);
    expect(new NotFoundError({ apiVersion: 'v1', kind: 'ConfigMap', namespace: null, name: 'x' }).exitCode).toBe(exitCodeOf('CLUSTER_NOTFOUND'));
    expect(new ClusterTimeoutError('m').exitCode).toBe(exitCodeOf('CLUSTER_TIMEOUT'));
  });

  it('no site passes an exit code of its own: the code alone decides it', () => {
    // `new CliError('CODE', message, ExitCode.x, ...)`, and `exitCode: ExitCode.x` in an error class's options: the
    // forms the table replaced (CliError no longer takes them; this keeps them from coming back through a subclass).
    const positional = /(?:new\s+\w*Error|super)\(\s*'[A-Z][A-Z0-9_]+',(?:[^;]*?),\s*ExitCode\.\w+/g;
    const option = /\bexitCode:[^,}]*ExitCode\./g;
    expect([..."throw new CliError('TIER_FAILED', message, ExitCode.failure, hint);".matchAll(positional)]).toHaveLength(1);
    expect([..."super(r, m, s, { code: 'X', exitCode: reason === 'Timeout' ? ExitCode.timeout : ExitCode.failure });".matchAll(option)]).toHaveLength(1);
    const errorClasses = sources.filter(({ text }) => /class \w+ extends (?:CliError|ClusterError|ConfigError)\b/.test(text));
    expect(errorClasses.length).toBeGreaterThan(2);
    const found = [
      ...sources.flatMap(({ file, text }) => [...text.matchAll(positional)].map((m) => `${file}: ${m[0]}`)),
      ...errorClasses.flatMap(({ file, text }) => [...text.matchAll(option)].map((m) => `${file}: ${m[0]}`)),
    ];
    expect(found).toEqual([]);
  });

  it('a request that timed out is a timeout (3) wherever it happens; an apply has a code for each', () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'x' };
    expect(new ClusterError('Timeout', 'm').exitCode).toBe(3);
    const timedOut = new ApplyError(ref, 'apply', 'Timeout', 'request timed out');
    expect([timedOut.code, timedOut.exitCode, timedOut.message]).toEqual(['APPLY_TIMEOUT', 3, 'ConfigMap/ns/x apply failed: request timed out']);
    const rejected = new ApplyError(ref, 'dry-run', 'Invalid', 'spec.x: bad', [], { statusReason: 'Invalid' });
    expect([rejected.code, rejected.exitCode, rejected.message]).toEqual(['APPLY_FAILED', 1, 'ConfigMap/ns/x dry-run failed (Invalid): spec.x: bad']);
  });

  it('the README\'s situations: bad input 2, a failed step 1, a timeout 3, a refusal 4, an interrupt 130', () => {
    expect(new ConfigError('BAD_FLAG', 'm').exitCode).toBe(2);
    expect(new CliError('CONFIRMATION_NEEDED', 'm').exitCode).toBe(2);
    expect(new CliError('FLUX_MISSING', 'm').exitCode).toBe(2);
    // Flux there at preflight and gone mid-run is a step that failed because the cluster changed under the run.
    expect(new CliError('FLUX_GONE', 'm').exitCode).toBe(1);
    expect(new CliError('NOT_CONVERGEABLE', 'm').exitCode).toBe(2);
    expect(new CliError('TIER_FAILED', 'm').exitCode).toBe(1);
    expect(new CliError('SOURCE_MISSING', 'm').exitCode).toBe(1);
    expect(new InternalError('m').exitCode).toBe(1);
    expect(new CliError('WAIT_TIMEOUT', 'm').exitCode).toBe(3);
    expect(new CliError('CONTEXT_GUARD', 'm').exitCode).toBe(4);
    expect(new CliError('RESET_DECLINED', 'm').exitCode).toBe(4);
    expect(new CliError('INTERRUPTED', 'm').exitCode).toBe(130);
  });

  it('the README\'s table says so for each refusal: reset without --yes and no terminal is 2, a declined prompt is 4', () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const row = (code: number) => readme.split('\n').find((l) => l.startsWith(`| ${code} |`)) ?? '';
    expect(row(exitCodeOf('CONFIRMATION_NEEDED'))).toMatch(/`reset` without `--yes` where there is no terminal to ask/);
    expect(row(exitCodeOf('RESET_DECLINED'))).toMatch(/a reset declined at its prompt/);
    expect(row(exitCodeOf('RESET_DECLINED'))).not.toMatch(/not confirmed/);
    expect(row(exitCodeOf('FLUX_MISSING'))).toMatch(/Flux is not on the cluster/);
    expect(row(exitCodeOf('CONTEXT_UNPINNED'))).toMatch(/not pinned/);
    expect(row(exitCodeOf('UNKNOWN_KUSTOMIZATION'))).toMatch(/`status -n`/);
  });

  it('keeps the hint and the cause', () => {
    const cause = new Error('underneath');
    const e = new CliError('SOURCE_FAILED', 'm', { hint: 'do this', cause });
    expect([e.hint, e.cause, e.message, e.code]).toEqual(['do this', cause, 'm', 'SOURCE_FAILED']);
    const c = new ConfigError('YAML_INVALID', 'm', 'fix it', { cause });
    expect([c.hint, c.cause, c.exitCode, c.name]).toEqual(['fix it', cause, 2, 'ConfigError']);
  });
});
