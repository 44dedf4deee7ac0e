// src/gotemplate against Go itself: every case of test/fixtures/gotemplate/cases.json rendered by Go's text/template
// with slim-sprig v3.0.0's HermeticTxtFuncMap and flux-operator's options (<< >>, missingkey=error), integers as
// int64 as Kubernetes decodes JSON; go-output.json holds what Go printed (test/fixtures/gotemplate/gotref/main.go,
// `go run . < ../cases.json`). Output and error text must be Go's, byte for byte.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GoTemplate } from '../../src/gotemplate/template.js';
import { asInputValue } from '../../src/resourceset/inputs.js';

const DIR = path.resolve(import.meta.dirname, '../fixtures/gotemplate');
const cases = JSON.parse(readFileSync(path.join(DIR, 'cases.json'), 'utf8')) as { name: string; tmpl: string; data: unknown }[];
const want = new Map((JSON.parse(readFileSync(path.join(DIR, 'go-output.json'), 'utf8')) as { name: string; out?: string; err?: string }[]).map((r) => [r.name, r]));

/** What standup renders, in go-output.json's shape. */
function render(tmpl: string, data: unknown): { out?: string; err?: string } {
  try {
    return { out: new GoTemplate(tmpl, { name: 'resourceset', leftDelim: '<<', rightDelim: '>>', missingKeyError: true }).execute(data) };
  } catch (e) {
    return { err: (e as Error).message };
  }
}

describe('Go text/template + slim-sprig, as Go renders them', () => {
  it('has Go\'s output for every case', () => expect(cases.filter((c) => !want.has(c.name)).map((c) => c.name)).toEqual([]));
  it.each(cases.map((c) => [c.name, c] as const))('%s', (name, c) => {
    const { name: _n, ...expected } = want.get(name)!;
    // The data as flux-operator decodes an input set (whole numbers int64), as the Go program decoded it.
    expect(render(c.tmpl, asInputValue(c.data))).toEqual(expected);
  });
});
