import path from 'node:path';
import { runCli } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/io.js';
import { plainStyle } from '../../src/ui/style.js';

export const PROJECT = path.resolve(import.meta.dirname, '../..');

/** The CLI in-process with captured output, as a user would run it from the project root. */
export async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: Io = { out: (t) => void (stdout += t), err: (t) => void (stderr += t), style: plainStyle, errStyle: plainStyle, isTTY: false, env: {}, cwd: PROJECT };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}
