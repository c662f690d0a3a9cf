import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { recordFigures } from '../support/figures.js';
import { engineWorkspace, inbox, liveWorkflow, settledMessages } from '../support/engine-drivers.js';

const CLIENTS = 50;

/**
 * 50 clients send the same trigger with one `$idempotency_key` at the same moment, over real HTTP
 * connections (40 as a single record, 10 inside a bulk array): every answer names the same
 * execution, and exactly one execution, one run and one message exist.
 */
describe('concurrent duplicate triggers', () => {
  const t = useTestApp({}, { engine: {} });
  let url: string;
  beforeAll(async () => {
    url = await t().app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t().app.close());

  it(`${CLIENTS} simultaneous triggers with one idempotency key start one run`, async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'once', [inbox()]);
    const record = { workflow: 'once', recipients: ['ada'], $idempotency_key: 'charge-7', data: { n: 1 } };
    const send = async (i: number) => {
      const bulk = i % 5 === 4;
      const response = await fetch(`${url}/trigger/`, {
        method: 'POST',
        headers: { ...ws.base, 'content-type': 'application/json' },
        body: JSON.stringify(bulk ? [record] : record),
      });
      const body = (await response.json()) as { message_id?: string; records?: { message_id: string }[] };
      return { status: response.status, id: bulk ? body.records?.[0]?.message_id : body.message_id };
    };
    const answers = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => send(i)));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(40);
    expect(answers.filter((a) => a.status === 207)).toHaveLength(10);
    const ids = new Set(answers.map((a) => a.id));
    expect(ids.size).toBe(1);
    const id = [...ids][0]!;
    await settledMessages(t, ws, id, 1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const count = async (table: 'executions' | 'workflow_runs' | 'messages') =>
      Number(
        (
          await t()
            .db.selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('workspace_id', '=', ws.workspaceId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('executions')).toBe(1);
    expect(await count('workflow_runs')).toBe(1);
    expect(await count('messages')).toBe(1);
    recordFigures('duplicate-triggers', {
      'concurrent triggers': CLIENTS,
      'distinct message_ids answered': ids.size,
      executions: 1,
      runs: 1,
      messages: 1,
    });
  });
});
