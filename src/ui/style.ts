/** Minimal ANSI styling that honours NO_COLOR and non-terminals; the CLI decides once and passes it down. */
export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const identity = (s: string) => s;

export const plainStyle: Style = { bold: identity, dim: identity, red: identity, yellow: identity, green: identity, cyan: identity };
export const ansiStyle: Style = {
  bold: wrap(1, 22),
  dim: wrap(2, 22),
  red: wrap(31, 39),
  yellow: wrap(33, 39),
  green: wrap(32, 39),
  cyan: wrap(36, 39),
};

/** Colour only on a terminal, never with NO_COLOR set (https://no-color.org), always with FORCE_COLOR. */
export function pickStyle(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Style {
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return ansiStyle;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return plainStyle;
  return stream.isTTY ? ansiStyle : plainStyle;
}
