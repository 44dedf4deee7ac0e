// `--verbose`: debug lines on stderr from anywhere (the loader's kustomize builds, git, API calls), without passing a
// logger through every layer. The CLI installs a sink for one command and removes it afterwards; with no sink a
// debug call costs one check, and the message function is not even called.

type Sink = (line: string) => void;
let sink: Sink | null = null;

/** Installs (or with null removes) where debug lines go; returns the previous sink so a caller can restore it. */
export function setDebugSink(next: Sink | null): Sink | null {
  const previous = sink;
  sink = next;
  return previous;
}

export const debugEnabled = (): boolean => sink !== null;

/** Logs one debug line; `message` is a function so that building it costs nothing unless --verbose is on. */
export function debug(message: () => string): void {
  if (sink) sink(message());
}
