import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { badRequest, HttpError, unavailable } from '../errors.js';
import { checkPathWorkspaceKey } from '../services/workspace-keys.js';

import { acceptTriggers, type Intake, type IntakeRecord } from '../engine/intake.js';
import { presentTriggerResults } from '../presenters/triggers.js';
import {
  failErrors,
  LegacyTriggerBodySchema,
  LegacyTriggerParamsSchema,
  MAX_TRIGGER_RECORDS,
  TRIGGER_BODY_LIMIT,
  TriggerAcceptedSchema,
  TriggerBulkSchema,
} from '../schemas/triggers.js';
import { boundedTriggerAt } from '../domain/broadcasts.js';
import { checkWith, RecordError, readRecipient } from '../domain/trigger-records.js';
import { legacySmartNode } from '../domain/legacy-workflows.js';

type LegacyBody = typeof LegacyTriggerBodySchema.static;
const legacyCheck = TypeCompiler.Compile(LegacyTriggerBodySchema);

/**
 * A legacy dynamic workflow's tree (ours): an optional wait (`delay`, or until `trigger_at`), then
 * its template on every channel the user has, or on `delivery.mandatory_channels` when given.
 */
function readLegacy(value: unknown, at: string): IntakeRecord | Intake {
  const prefix = at ? `${at}.` : '';
  try {
    checkWith(legacyCheck, value, at);
    const body = value as LegacyBody;
    const users = body.users.map((user, i) => readRecipient(user, `${prefix}users[${i}]`));
    if (users.some((user) => user.kind !== 'user'))
      throw new RecordError(`${prefix}users must hold users {distinct_id, …}`);
    const nodes: unknown[] = [];
    if (body.trigger_at !== undefined) {
      boundedTriggerAt(body.trigger_at, Date.now(), `${prefix}trigger_at`);
      nodes.push({
        name: 'wait',
        node_type: 'delay',
        delay_type: 'relative_to',
        relative_to: { pivot_expr: '.$trigger_at' },
      });
    } else if (body.delay !== undefined)
      nodes.push({ name: 'wait', node_type: 'delay', delay_type: 'fixed', duration: String(body.delay) });
    const mandatory = Array.isArray(body.delivery?.mandatory_channels)
      ? (body.delivery.mandatory_channels as string[])
      : [];
    nodes.push(
      body.delivery?.smart === true
        ? legacySmartNode(body.name, body.template, body.delivery, mandatory, prefix)
        : {
            name: body.name,
            node_type: 'send_multi_channel',
            template: body.template,
            ...(mandatory.length ? { channels: mandatory } : {}),
          },
    );
    return {
      workflow: body.name,
      recipients: users,
      data: { ...(body.data ?? {}), ...(body.trigger_at !== undefined ? { $trigger_at: body.trigger_at } : {}) },
      actor: null,
      tenantId: body.tenant_id ?? body.brand_id ?? 'default',
      idempotencyKey: body.$idempotency_key ?? null,
      cancellationKey: null,
      source: 'legacy',
      dynamic: { tree: { nodes }, category: body.notification_category },
    };
  } catch (error) {
    if (error instanceof RecordError) return { ok: false, status: 400, message: error.message };
    throw error;
  }
}

/**
 * `POST /{workspace_key}/trigger/`: the older SDKs' "dynamic workflow" (docs/spec/engine.md §1), one
 * body or (their bulk call) an array of up to 100. It names no stored workflow: its tree is built
 * from the request, and its `notification_category` judges preferences.
 */
export const legacyTriggerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // As POST /trigger/: offered only where the durable queue is (src/base/triggers.ts).
  if (!app.queue) return;
  app.post(
    '/:workspace_key/trigger/',
    {
      config: { errorShape: 'fail' as const },
      bodyLimit: TRIGGER_BODY_LIMIT,
      // The body is checked record by record (readLegacy): an array's records stay independent.
      validatorCompiler: () => (value) => ({ value }),
      schema: {
        tags: ['triggers'],
        operationId: 'triggerDynamicWorkflow',
        summary: 'Run a dynamic workflow (legacy SDKs): a template for up to 100 users; an array → 207',
        params: LegacyTriggerParamsSchema,
        body: Type.Union([
          LegacyTriggerBodySchema,
          Type.Array(LegacyTriggerBodySchema, { minItems: 1, maxItems: 100 }),
        ]),
        response: { 202: TriggerAcceptedSchema, 207: TriggerBulkSchema, ...failErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const queue = app.queue;
      if (!queue) throw unavailable('the engine is not running');
      const workspace = request.workspace;
      const { workspace_key } = request.params as { workspace_key: string };
      await checkPathWorkspaceKey(app.db, workspace.id, workspace_key);
      const body = request.body as unknown;
      if (Array.isArray(body)) {
        if (body.length === 0 || body.length > MAX_TRIGGER_RECORDS)
          throw badRequest(`the body must hold 1 to ${MAX_TRIGGER_RECORDS} records`);
        const records = body.map((record, i) => readLegacy(record, `[${i}]`));
        const results = await acceptTriggers(app.db, queue, workspace.id, records, app.credentials);
        return reply.code(207).send(presentTriggerResults(results));
      }
      const [result] = await acceptTriggers(app.db, queue, workspace.id, [readLegacy(body, '')], app.credentials);
      if (!result!.ok) throw new HttpError(result!.status, result!.message);
      return reply.code(202).send({ message_id: result!.executionId, status: 'success' });
    },
  );
};
