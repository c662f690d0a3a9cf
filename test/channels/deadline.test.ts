import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { deadline } from '../../src/channels/deadline.js';
import { attemptDeadline } from '../../src/channels/providers/shared.js';

const NEVER = new AbortController().signal;

/** src/channels/deadline.ts: a deadline on outbound work whose timer ends with the work. */
describe('a deadline', () => {
  it('aborts when its time is up, as a timeout', async () => {
    const within = deadline(NEVER, 20);
    expect(within.signal.aborted).toBe(false);
    await sleep(60);
    expect(within.signal.aborted).toBe(true);
    expect(within.timedOut).toBe(true);
    expect((within.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('aborts with its parent, with the parent’s reason, and is not a timeout', () => {
    const parent = new AbortController();
    const within = deadline(parent.signal, 10_000);
    const reason = new Error('the worker stops');
    parent.abort(reason);
    expect(within.signal.aborted).toBe(true);
    expect(within.signal.reason).toBe(reason);
    expect(within.timedOut).toBe(false);
    // Made under a parent already aborted, it is aborted at once.
    expect(deadline(parent.signal, 10_000).signal.aborted).toBe(true);
  });

  it('once cleared, neither its time nor its parent aborts it (the timer does not outlive the work)', async () => {
    const parent = new AbortController();
    const within = deadline(parent.signal, 20);
    within.clear();
    await sleep(60);
    parent.abort();
    expect(within.signal.aborted).toBe(false);
    expect(within.timedOut).toBe(false);
  });

  it('clears the deadlines made under it: a provider’s own timeout ends with the engine’s call', async () => {
    const call = deadline(NEVER, 10_000);
    const provider = attemptDeadline(call.signal, 100);
    const nested = deadline(provider.signal, 30);
    call.clear();
    await sleep(150);
    expect(provider.signal.aborted).toBe(false);
    expect(nested.signal.aborted).toBe(false);
    expect(provider.outcomeOf(new Error('socket hang up'))).not.toMatchObject({ reason: 'timed out after 100 ms' });
  });

  it('aborts the deadlines under it when it aborts, each saying which ended it', async () => {
    const call = deadline(NEVER, 20);
    const provider = attemptDeadline(call.signal, 10_000);
    await sleep(60);
    expect(provider.signal.aborted).toBe(true);
    expect(provider.outcomeOf(new Error('aborted'))).toEqual({
      kind: 'retry',
      reason: 'aborted before the provider answered',
    });
    const own = attemptDeadline(deadline(NEVER, 10_000).signal, 20);
    await sleep(60);
    expect(own.outcomeOf(new Error('aborted'))).toEqual({ kind: 'retry', reason: 'timed out after 20 ms' });
  });
});
