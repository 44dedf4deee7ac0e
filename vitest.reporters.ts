// When CI sets STANDUP_TEST_REPORT_DIR, each suite also writes a JSON report there, so .ci/run can print one total.
export function reporters(suite: string): { reporters: string[]; outputFile?: Record<string, string> } {
  const dir = process.env.STANDUP_TEST_REPORT_DIR;
  if (!dir) return { reporters: ['default'] };
  return { reporters: ['default', 'json'], outputFile: { json: `${dir}/${suite}.json` } };
}
