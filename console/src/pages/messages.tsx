import { api } from '../api';
import { useAsync } from '../hooks';
import { setQuery, useLocation } from '../router';
import { PagedTable } from '../components/paged-table';
import { PreviewFrame } from '../components/preview-frame';
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
import type { Message } from '../types';

const STATUSES = [
  'triggered',
  'queued',
  'sent',
  'delivered',
  'seen',
  'read',
  'clicked',
  'dismissed',
  'failed',
  'refused',
];
const CHANNELS = ['email', 'sms', 'whatsapp', 'inbox', 'webpush', 'androidpush', 'iospush', 'slack', 'ms_teams'];

const recipientOf = (m: Message) =>
  m.recipient.$type === 'object' ? `${m.recipient.object_type}/${m.recipient.id}` : (m.recipient.distinct_id ?? '');

/** datetime-local (the browser's zone) ↔ ISO timestamps for the API. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);
const toLocal = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

export function Messages(props: { ws: string }) {
  const { query } = useLocation();
  const filters = {
    recipient_id: query.get('recipient_id') ?? '',
    workflow_slug: query.get('workflow_slug') ?? '',
    status: query.get('status') ?? '',
    channel: query.get('channel') ?? '',
    created_at_gte: query.get('created_at_gte') ?? '',
    created_at_lte: query.get('created_at_lte') ?? '',
    execution_id: query.get('execution_id') ?? '',
  };
  const before = query.get('before') ?? undefined;
  const after = query.get('after') ?? undefined;
  const key = query.toString();
  const list = useAsync(
    () =>
      api.messages.list(props.ws, {
        order: 'desc',
        limit: 25,
        before,
        after,
        recipient_id: filters.recipient_id,
        workflow_slug: filters.workflow_slug,
        status: filters.status,
        channel: filters.channel,
        created_at_gte: filters.created_at_gte,
        created_at_lte: filters.created_at_lte,
        execution_id: filters.execution_id,
      }),
    [props.ws, key],
  );
  const filter = (name: string, value: string | undefined) =>
    setQuery({ [name]: value, before: undefined, after: undefined });
  const filtered = Object.values(filters).some(Boolean);
  return (
    <Page
      title="Messages"
      subtitle="Every message Herald made, newest first: what it decided, what it sent and how it went."
    >
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="User (distinct_id)">
          <input type="search" value={filters.recipient_id} onChange={(e) => filter('recipient_id', valueOf(e))} />
        </Field>
        <Field label="Workflow">
          <input type="search" value={filters.workflow_slug} onChange={(e) => filter('workflow_slug', valueOf(e))} />
        </Field>
        <ChoiceFilter
          label="Status"
          value={filters.status}
          choices={STATUSES}
          onChange={(value) => filter('status', value)}
        />
        <ChoiceFilter
          label="Channel"
          value={filters.channel}
          choices={CHANNELS}
          onChange={(value) => filter('channel', value)}
        />
        <Field label="From">
          <input
            type="datetime-local"
            value={toLocal(filters.created_at_gte || null)}
            onChange={(e) => filter('created_at_gte', toIso(valueOf(e)))}
          />
        </Field>
        <Field label="To">
          <input
            type="datetime-local"
            value={toLocal(filters.created_at_lte || null)}
            onChange={(e) => filter('created_at_lte', toIso(valueOf(e)))}
          />
        </Field>
      </form>
      <PagedTable
        list={list}
        what="The message log"
        empty={{
          title: filtered ? 'No message matches these filters.' : 'No messages yet.',
          children: filtered
            ? 'Clear a filter to see more.'
            : 'Trigger a workflow with an API key; each delivery it makes shows here.',
        }}
        rowKey={(m) => m.message_id}
        columns={[
          {
            header: 'Message',
            cell: (m) => (
              <Link to={`/messages/${encodeURIComponent(m.message_id)}`} class="mono">
                {m.message_id}
              </Link>
            ),
          },
          { header: 'Recipient', cell: (m) => recipientOf(m) },
          { header: 'Workflow', cell: (m) => m.workflow.slug },
          { header: 'Channel', cell: (m) => m.channel },
          {
            header: 'Status',
            cell: (m) => (
              <>
                <StatusBadge status={m.status} />
                {m.reason && <div class="muted small">{m.reason}</div>}
              </>
            ),
          },
          { header: 'Created', cell: (m) => <Time at={(m.created_at as string | undefined) ?? null} /> },
        ]}
      />
    </Page>
  );
}

export function MessageDetail(props: { ws: string; id: string }) {
  const message = useAsync(() => api.messages.get(props.ws, props.id), [props.ws, props.id]);
  const m = message.data;
  return (
    <Page title="Message" subtitle={<span class="mono">{props.id}</span>}>
      {message.error ? (
        <ErrorNotice error={message.error} what="The message log" />
      ) : !m ? (
        <Loading />
      ) : (
        <div class="split">
          <div class="pane">
            <h2>Decision</h2>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <StatusBadge status={m.status} />
              </dd>
              {m.reason && (
                <>
                  <dt>Reason</dt>
                  <dd>{m.reason}</dd>
                </>
              )}
              <dt>Recipient</dt>
              <dd>
                {m.recipient.distinct_id ? (
                  <Link to={`/users/${encodeURIComponent(m.recipient.distinct_id)}`}>{recipientOf(m)}</Link>
                ) : (
                  recipientOf(m)
                )}
              </dd>
              <dt>Workflow</dt>
              <dd>
                <Link to={`/workflows/${encodeURIComponent(m.workflow.slug)}`}>{m.workflow.slug}</Link> ·{' '}
                {m.workflow.node_ref}
              </dd>
              <dt>Run</dt>
              <dd>
                <Link to={`/runs/${encodeURIComponent(m.parent_execution_id)}`} class="mono">
                  {m.parent_execution_id}
                </Link>
              </dd>
              <dt>Channel</dt>
              <dd>{m.channel}</dd>
              <dt>Category</dt>
              <dd>{m.category}</dd>
              <dt>Vendor</dt>
              <dd>
                {m.vendor ? (
                  `${m.vendor.nickname ?? m.vendor.name} (${m.vendor.name})`
                ) : (
                  <span class="muted">none</span>
                )}
              </dd>
              <dt>Template</dt>
              <dd>
                {m.template ? (
                  `${m.template.slug} v${m.template.version_no} · ${m.template.variant_id}`
                ) : (
                  <span class="muted">none</span>
                )}
              </dd>
              <dt>Attempts</dt>
              <dd>{m.attempts}</dd>
              <dt>Created</dt>
              <dd>
                <Time at={(m.created_at as string | undefined) ?? null} />
              </dd>
            </dl>
            {m.error !== null && m.error !== undefined && (
              <>
                <h2>Error</h2>
                <Json value={m.error} />
              </>
            )}
            <h2>Attempts</h2>
            <AttemptLog attempts={m.delivery_attempts ?? []} />
          </div>
          <div class="pane">
            <h2>Rendered content</h2>
            {m.content ? (
              <PreviewFrame channel={m.channel} content={m.content} title="Message content" />
            ) : (
              <Empty title="Nothing was rendered." />
            )}
          </div>
        </div>
      )}
    </Page>
  );
}

const text = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** Every delivery attempt the message records, oldest first: when, through which vendor, how it went. */
function AttemptLog(props: { attempts: Record<string, unknown>[] }) {
  if (props.attempts.length === 0)
    return <Empty title="No attempt yet.">A message Herald decided not to send is never attempted.</Empty>;
  return (
    <table class="table compact" aria-label="Delivery attempts">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">At</th>
          <th scope="col">Vendor</th>
          <th scope="col">Outcome</th>
          <th scope="col">Took</th>
          <th scope="col">Reason</th>
        </tr>
      </thead>
      <tbody>
        {props.attempts.map((a, i) => {
          const vendor = a.vendor as { name?: string; nickname?: string | null } | string | undefined;
          return (
            <tr key={i}>
              <td>{i + 1}</td>
              <td>
                <Time at={typeof a.at === 'string' ? a.at : null} />
              </td>
              <td>{typeof vendor === 'object' && vendor ? (vendor.nickname ?? vendor.name ?? '') : text(vendor)}</td>
              <td>
                <StatusBadge status={text(a.outcome)} />
              </td>
              <td>{typeof a.ms === 'number' ? `${a.ms} ms` : ''}</td>
              <td>
                {text(a.reason)}
                {a.provider_response !== undefined && a.provider_response !== null && (
                  <details>
                    <summary>Provider response</summary>
                    <Json value={a.provider_response} />
                  </details>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
