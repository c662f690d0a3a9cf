import { sql } from 'kysely';
import type { TestApp } from './app.js';
import type { NewExecution } from '../../src/repositories/executions.js';
import { newUlid } from '../../src/ids.js';
import { createWorkspaceFixture, type WorkspaceFixture } from './fixtures.js';
import { configClient } from './config.js';
import { DEFINITION } from './preferences.js';

/** Drivers for engine tests: a workspace with preference categories live, workflows, triggers, messages. */

export async function engineWorkspace(t: () => TestApp) {
  const ws = await createWorkspaceFixture(t());
  await configClient(t, ws).commitDefinition(DEFINITION);
  return ws;
}

export const inbox = (template = 'welcome') => ({ name: 'Inbox', node_type: 'send_inbox', template });
export const node = (node_type: string, fields: Record<string, unknown> = {}) => ({
  name: node_type,
  node_type,
  ...fields,
});

/** Creates the workflow and commits it live; throws with the answer when the commit is refused. */
export async function liveWorkflow(
  t: () => TestApp,
  ws: WorkspaceFixture,
  slug: string,
  nodes: unknown[],
  overrides: Record<string, unknown> = {},
) {
  const config = configClient(t, ws);
  const response = await config.postWorkflow(slug, {
    name: slug,
    category: 'order-updates',
    trigger_type: 'api',
    tree: { nodes },
    ...overrides,
  });
  if (response.statusCode >= 300) throw new Error(`workflow not saved: ${response.body}`);
  const commit = await config.commitWorkflow(slug);
  if (commit.statusCode !== 202) throw new Error(`workflow not committed: ${commit.body}`);
  return commit.json();
}

export function baseCall(t: () => TestApp, ws: WorkspaceFixture) {
  return (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t().app.inject({ method, url, headers: ws.base, ...(payload === undefined ? {} : { payload: payload as object }) });
}

export async function trigger(t: () => TestApp, ws: WorkspaceFixture, body: unknown) {
  return baseCall(t, ws)('POST', '/trigger/', body);
}

export async function messages(t: () => TestApp, ws: WorkspaceFixture, query = '') {
  const response = await baseCall(t, ws)('GET', `/v1/message/${query}`);
  if (response.statusCode !== 200) throw new Error(`list failed: ${response.body}`);
  return response.json() as {
    meta: { count: number; has_next: boolean; after: string | null };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- message JSON, read freely by assertions
    results: Record<string, any>[];
  };
}

/** Polls until `check` returns a value (not undefined/false), or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The messages of one trigger once `count` of them have settled (no longer to_be_triggered/triggered). */
export function settledMessages(
  t: () => TestApp,
  ws: WorkspaceFixture,
  executionId: string,
  count: number,
  timeoutMs = 10_000,
) {
  return waitFor(
    async () => {
      const page = await messages(t, ws, `?execution_id=${executionId}&limit=1000`);
      const settled = page.results.filter((m) => m.status !== 'to_be_triggered' && m.status !== 'triggered');
      return settled.length >= count && page.results.length === settled.length ? page.results : undefined;
    },
    timeoutMs,
    `${count} settled messages of ${executionId}`,
  );
}

/**
 * An execution row as the intake writes it (a plain API trigger of no stored workflow, no
 * recipients), for tests that write executions themselves; `fields` replaces any of it.
 */
export const newExecution = (fields: Partial<NewExecution> = {}): NewExecution => ({
  id: newUlid(),
  workflow_id: null,
  workflow_slug: 'test',
  version_no: 1,
  category: 'order-updates',
  data: {},
  actor: null,
  tenant_id: 'default',
  recipients: [],
  idempotency_key: null,
  cancellation_key: null,
  source: 'trigger',
  ...fields,
});

/**
 * A real fault, no mock: the database refuses every save of one recipient's runs (their step, in a
 * batch and alone) until the returned function lifts it.
 */
export async function refuseRunSaves(t: () => TestApp, distinctId: string) {
  const name = sql.id(`refuse_${distinctId.replace(/\W/g, '_')}`);
  await sql`create function ${name}() returns trigger language plpgsql as $$
    begin
      if new.distinct_id = ${sql.lit(distinctId)} then raise exception 'refused for the test'; end if;
      return new;
    end $$`.execute(t().db);
  await sql`create trigger ${name} before update on workflow_runs for each row execute function ${name}()`.execute(
    t().db,
  );
  return async () => {
    await sql`drop trigger ${name} on workflow_runs`.execute(t().db);
    await sql`drop function ${name}()`.execute(t().db);
  };
}

/** A list with these members (users created as the list API creates them). */
export async function listOf(t: () => TestApp, ws: WorkspaceFixture, listId: string, members: string[]) {
  const call = baseCall(t, ws);
  const created = await call('POST', '/v1/subscriber_list/', { list_id: listId });
  if (created.statusCode >= 300) throw new Error(`list not created: ${created.body}`);
  for (let i = 0; i < members.length; i += 1000) {
    const added = await call('POST', `/v1/subscriber_list/${listId}/subscriber/add/`, {
      distinct_ids: members.slice(i, i + 1000),
    });
    if (added.statusCode >= 300) throw new Error(`members not added: ${added.body}`);
  }
}

/** A trigger job as the queue holds it, once per execution it starts. */
export interface TriggerJobRow {
  id: string;
  execution_id: string;
  executions: number;
  state: string;
  retry_count: number;
  start_after: Date;
}

/**
 * The trigger jobs that start these executions, one row per execution: a job starts a group of executions
 * (src/engine/trigger-jobs.ts), a job of the older shape one (`data.executionId`).
 */
export async function triggerJobsOf(t: TestApp, executionIds: string[]) {
  const { rows } = await sql<TriggerJobRow>`
    select j.id::text as id, e.execution_id, jsonb_array_length(coalesce(j.data->'executionIds', '[1]'::jsonb))::int as executions,
      j.state, j.retry_count, j.start_after
    from ${sql.table(`${t.engineRuntime!.schema}.job`)} j
    cross join lateral jsonb_array_elements_text(coalesce(j.data->'executionIds', jsonb_build_array(j.data->'executionId')))
      as e(execution_id)
    where j.name = 'herald-trigger' and e.execution_id = any(${executionIds}::text[])`.execute(t.db);
  return rows;
}
