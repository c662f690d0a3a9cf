import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';

/** Sends each payload and expects the full 400 validation error, its detail keyed by the named field. */
export async function expectFieldErrors(
  send: (payload: object) => Promise<LightMyRequestResponse>,
  cases: [payload: object, field: string][],
) {
  for (const [payload, field] of cases) {
    const response = await send(payload);
    const label = JSON.stringify(payload).slice(0, 200);
    expect(response.statusCode, label).toBe(400);
    expect(response.json(), label).toMatchObject({
      code: 400,
      error_code: 'validation_error',
      type: 'ValidationError',
    });
    expect(Object.keys(response.json().detail), label).toContain(field);
  }
}
