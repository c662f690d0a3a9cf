import { api } from '../api';
import { PagedTable } from '../components/paged-table';
import { useAsync } from '../hooks';
import { setQuery, useLocation } from '../router';
import {
  ChoiceFilter,
  Empty,
  ErrorNotice,
  Field,
  Json,
  Link,
  Loading,
  Page,
  StatusBadge,
  Time,
  valueOf,
} from '../components/ui';
import type { Run } from '../types';

const STATUSES = ['accepted', 'running', 'waiting', 'completed', 'cancelled', 'failed'];

export function Runs(props: { ws: string }) {
  const { query } = useLocation();
  const filters = {
    workflow_slug: query.get('workflow_slug') ?? '',
    recipient_id: query.get('recipient_id') ?? '',
    status: query.get('status') ?? '',
  };
  const key = query.toString();
  const list = useAsync(
    () =>
      api.runs.list(props.ws, {
        limit: 25,
        ...filters,
        before: query.get('before') ?? undefined,
        after: query.get('after') ?? undefined,
      }),
    [props.ws, key],
  );
  const filter = (name: string, value: string) => setQuery({ [name]: value, before: undefined, after: undefined });
  return (
    <Page title="Runs" subtitle="What happened to each trigger, step by step, newest first.">
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Workflow">
          <input type="search" value={filters.workflow_slug} onChange={(e) => filter('workflow_slug', valueOf(e))} />
        </Field>
        <Field label="Recipient (distinct_id)">
          <input type="search" value={filters.recipient_id} onChange={(e) => filter('recipient_id', valueOf(e))} />
        </Field>
        <ChoiceFilter
          label="Status"
          value={filters.status}
          choices={STATUSES}
          onChange={(value) => filter('status', value)}
        />
      </form>
      <PagedTable
        list={list}
        what="Run traces"
        empty={{
          title: 'No runs match.',
          children: 'Trigger a workflow; every trigger leaves a trace here, even one absorbed into a batch.',
        }}
        rowKey={(x) => x.execution_id}
        columns={[
          {
            header: 'Execution',
            cell: (x) => (
              <Link to={`/runs/${encodeURIComponent(x.execution_id)}`} class="mono">
                {x.execution_id}
              </Link>
            ),
          },
          { header: 'Workflow', cell: (x) => x.workflow.slug },
          { header: 'Status', cell: (x) => <StatusBadge status={x.status} /> },
          { header: 'Recipients', cell: (x) => x.recipients_count },
          { header: 'Created', cell: (x) => <Time at={x.created_at} /> },
        ]}
      />
    </Page>
  );
}

export function RunDetail(props: { ws: string; id: string }) {
  const trace = useAsync(() => api.runs.get(props.ws, props.id), [props.ws, props.id]);
  const x = trace.data;
  return (
    <Page title="Run" subtitle={<span class="mono">{props.id}</span>}>
      {trace.error ? (
        <ErrorNotice error={trace.error} what="Run traces" />
      ) : !x ? (
        <Loading />
      ) : (
        <>
          <dl class="facts inline">
            <dt>Workflow</dt>
            <dd>
              <Link to={`/workflows/${encodeURIComponent(x.workflow.slug)}`}>{x.workflow.slug}</Link>
            </dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={x.status} />
            </dd>
            <dt>Created</dt>
            <dd>
              <Time at={x.created_at} />
            </dd>
            <dt>Recipients</dt>
            <dd>{x.recipients_count}</dd>
            {x.idempotency_key && (
              <>
                <dt>Idempotency key</dt>
                <dd class="mono">{x.idempotency_key}</dd>
              </>
            )}
            {x.tenant_id && (
              <>
                <dt>Tenant</dt>
                <dd>{x.tenant_id}</dd>
              </>
            )}
          </dl>
          <p>
            <Link to={`/messages?execution_id=${encodeURIComponent(x.execution_id)}`}>Messages of this trigger</Link>
          </p>
          {(x.runs ?? []).length === 0 ? (
            <Empty title="No recipient runs.">The trigger resolved no recipient, or it has not started yet.</Empty>
          ) : (
            (x.runs ?? []).map((run) => <RunTrace key={run.run_id} run={run} />)
          )}
        </>
      )}
    </Page>
  );
}

function RunTrace(props: { run: Run }) {
  const { run } = props;
  const who = run.recipient.distinct_id ?? `${run.recipient.object_type}/${run.recipient.id}`;
  return (
    <section class="card run">
      <h2>
        {run.recipient.distinct_id ? (
          <Link to={`/users/${encodeURIComponent(run.recipient.distinct_id)}`}>{who}</Link>
        ) : (
          who
        )}{' '}
        <StatusBadge status={run.status} />
      </h2>
      {run.absorbed_into && (
        <p class="muted">
          Absorbed into run <span class="mono">{run.absorbed_into}</span>
        </p>
      )}
      <ol class="timeline" aria-label={`Steps for ${who}`}>
        {run.steps.map((step, i) => {
          const ids = Array.isArray(step.detail?.message_ids) ? (step.detail.message_ids as string[]) : [];
          return (
            <li key={i} class={`step outcome-${step.outcome}`}>
              <div class="row">
                <code>{step.node_ref}</code>
                <span class="muted small">{step.node_type}</span>
                <StatusBadge status={step.outcome} />
                <span class="muted small">
                  <Time at={step.at} />
                </span>
              </div>
              {ids.length > 0 && (
                <div class="small">
                  Messages:{' '}
                  {ids.map((id) => (
                    <Link key={id} to={`/messages/${encodeURIComponent(id)}`} class="mono">
                      {id}{' '}
                    </Link>
                  ))}
                </div>
              )}
              {step.detail && Object.keys(step.detail).length > 0 && ids.length === 0 && <Json value={step.detail} />}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
