/**
 * A deadline on outbound work (a provider call, a webhook POST): a signal that aborts when its parent does or when
 * its time is up, whichever first, and a `clear()` that ends both once the work is done.
 *
 * `AbortSignal.any([parent, AbortSignal.timeout(ms)])` says the same, but its timer cannot be cleared: it fires
 * `ms` after every call however early the call ended, building a DOMException with its stack, and keeps the signals
 * alive until then. Under a fan-out that was 30–75 µs of CPU per call and most of a worker's memory
 * (BENCHMARKS.md, "Deadlines that end with their call"). Here the timer is cleared with the work, and the reason of
 * a timeout is built only when one happens.
 *
 * A deadline made under another (its parent the signal of a `deadline`) is cleared with it: a provider's own
 * `timeout_ms` (channels/providers/shared.ts `attemptDeadline`) ends when the engine's call does, without each
 * provider having to clear it.
 */

export interface Deadline {
  readonly signal: AbortSignal;
  /** Its own time ran out (not its parent's abort). */
  readonly timedOut: boolean;
  /** Ends the timer, the link to the parent and the deadlines made under it; the signal stays as it is. */
  clear(): void;
}

/** The clears of the deadlines made under a deadline's signal. */
const under = new WeakMap<AbortSignal, Set<() => void>>();

export function deadline(parent: AbortSignal, ms: number): Deadline {
  const controller = new AbortController();
  const children = new Set<() => void>();
  under.set(controller.signal, children);
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  // Unlinked from its parent and its timer; the deadlines under it hear its abort, if one comes.
  const release = () => {
    clearTimeout(timer);
    parent.removeEventListener('abort', follow);
    under.get(parent)?.delete(clear);
  };
  const clear = () => {
    release();
    for (const child of children) child();
    children.clear();
  };
  function follow() {
    release();
    controller.abort(parent.reason);
  }
  if (parent.aborted) follow();
  else {
    parent.addEventListener('abort', follow, { once: true });
    under.get(parent)?.add(clear);
    timer = setTimeout(() => {
      timedOut = true;
      release();
      controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, ms);
    timer.unref();
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    clear,
  };
}
