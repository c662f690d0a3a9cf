/** One request as the load saw it: when it started and ended (ms since the load began) and what came back. */
export interface Sample<Label = string> {
  label: Label;
  start: number;
  end: number;
  status: number;
  body: unknown;
  headers: Record<string, unknown>;
}

/**
 * Runs `workers` loops concurrently, each sending one request after another until `stop()` says so.
 * `send` returns the status, body and headers; timings are taken here.
 */
export async function runLoad<Label>(options: {
  workers: number;
  stop: () => boolean;
  send: (worker: number, iteration: number) => Promise<Omit<Sample<Label>, 'start' | 'end'>>;
  clock: () => number;
}): Promise<Sample<Label>[]> {
  const samples: Sample<Label>[] = [];
  await Promise.all(
    Array.from({ length: options.workers }, async (_, worker) => {
      for (let iteration = 0; !options.stop(); iteration += 1) {
        // Embedded storage answers without I/O: without this, the loop would run on microtasks alone
        // and starve every timer (the test's own schedule included).
        await new Promise((resolve) => setImmediate(resolve));
        const start = options.clock();
        const outcome = await options.send(worker, iteration);
        samples.push({ ...outcome, start, end: options.clock() });
      }
    }),
  );
  return samples;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keys an object must have, exactly: the documented error bodies. */
export const FULL_ERROR_KEYS = ['code', 'detail', 'error_code', 'message', 'type'];
export const SHORT_ERROR_KEYS = ['code', 'message'];
export const keysOf = (body: unknown) => (body && typeof body === 'object' ? Object.keys(body).sort() : []);
