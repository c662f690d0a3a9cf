import { evaluateJsonnet } from '../../domain/jsonnet.js';
import { readRecipient, RecordError, type Recipient } from '../../domain/trigger-records.js';
import { acceptTriggersIn } from '../intake.js';
import type { RunContext } from '../types.js';
import type { NodeHandlerOf } from './types.js';
import { isObject } from '../../domain/values.js';

/**
 * `invokeworkflow`: starts the workflow `workflow` for the recipient chosen by
 * `recipient_selection` (this run's recipient, its actor, or a JSONNET `recipient_expression`),
 * with `actor_selection` likewise, and the node's `data` JSONNET (over this run's data when
 * `append_current_run_data`), in the run step's transaction: the new execution and its first job
 * commit with this step, once. Its messages carry this run as `parent_execution_id`.
 *
 * (ours) A chain of invocations is at most MAX_INVOKE_DEPTH deep: a run at that depth that would
 * invoke again (a workflow invoking itself, or two invoking each other) fails instead. So does an
 * invoke the intake refuses (a workflow missing, disabled or never committed).
 */

export const MAX_INVOKE_DEPTH = 5;

/** The run's actor or recipient as a trigger recipient, without inline profile (the stored one is used). */
function chosen(context: RunContext, selection: unknown, expression: unknown, at: string): Recipient | null {
  const { run, recipient } = context;
  if (selection === 'recipient')
    return recipient.type === 'object'
      ? { kind: 'object', objectType: recipient.object_type!, objectId: recipient.object_id! }
      : { kind: 'user', distinctId: recipient.distinct_id!, transient: false };
  if (selection === 'actor') {
    const actor = run.actor as Recipient | null;
    return actor
      ? actor.kind === 'user'
        ? { kind: 'user', distinctId: actor.distinctId, transient: false }
        : actor
      : null;
  }
  if (selection === 'expression' && typeof expression === 'string') {
    const value = evaluateJsonnet(expression, context.namespaces);
    if (value === undefined || value === null) return null;
    const read = readRecipient(value, at);
    return read.kind === 'user' ? { kind: 'user', distinctId: read.distinctId, transient: false } : read;
  }
  return null;
}

export const invokeworkflow: NodeHandlerOf<'invokeworkflow'> = async (context, config) => {
  const { trx, run, namespaces } = context;
  let recipient: Recipient | null;
  let actor: Recipient | null;
  try {
    recipient = chosen(context, config.recipient_selection, config.recipient_expression, 'recipient');
    actor = chosen(context, config.actor_selection, config.actor_expression, 'actor');
  } catch (error) {
    if (error instanceof RecordError) return { kind: 'stop', status: 'failed', error: error.message };
    throw error;
  }
  if (recipient === null) return { kind: 'next' };
  if (run.invoke_depth >= MAX_INVOKE_DEPTH)
    return { kind: 'stop', status: 'failed', error: `invocations nested deeper than ${MAX_INVOKE_DEPTH}` };

  const rawData = config.data;
  const ownData = typeof rawData === 'string' && rawData.trim() !== '' ? evaluateJsonnet(rawData, namespaces) : rawData;
  const data = {
    ...(config.append_current_run_data === true ? namespaces.data : {}),
    ...(isObject(ownData) ? ownData : {}),
  };
  const [result] = await acceptTriggersIn(trx, context.queue, run.workspace_id, [
    {
      workflow: config.workflow,
      recipients: [recipient],
      data,
      actor,
      tenantId: run.tenant_id,
      idempotencyKey: null,
      cancellationKey: null,
      source: 'invoke',
      invokedBy: { runId: run.id, depth: run.invoke_depth + 1 },
    },
  ]);
  if (result?.ok) return { kind: 'next', step: { outcome: 'done', detail: { execution_id: result.executionId } } };
  return { kind: 'stop', status: 'failed', error: result?.message ?? 'the invoked workflow was refused' };
};
