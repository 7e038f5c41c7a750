/**
 * SIGINT (Ctrl-C) and SIGTERM end a following command (`planner watch`, `start --wait`, the demo) at once: a run that
 * waits on a question would otherwise keep the watcher's long-poll, and the demo's in-process workers, alive.
 */
export interface Interruption {
  /** Settles with the signal's name when one arrives. */
  signalled: Promise<NodeJS.Signals>;
  /** Removes the handlers (the signals take their default effect again). */
  dispose(): void;
}

/** The exit code of a process ended by `signal`, as shells report it (128 + its number). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : 143;
}

export function onInterrupt(): Interruption {
  let resolve!: (signal: NodeJS.Signals) => void;
  const signalled = new Promise<NodeJS.Signals>((r) => (resolve = r));
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((signal) => {
    const handler = () => resolve(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return {
    signalled,
    dispose: () => handlers.forEach(([signal, handler]) => process.off(signal, handler)),
  };
}
