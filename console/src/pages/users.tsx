import { useState } from 'preact/hooks';
import { api } from '../api';
import { PagedTable } from '../components/paged-table';
import { useAsync } from '../hooks';
import { navigate, setQuery, useLocation } from '../router';
import type { PreferenceEvaluations } from '../types';
import {
  Badge,
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

const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

export function Users(props: { ws: string }) {
  const { query } = useLocation();
  const q = query.get('q') ?? '';
  const [text, setText] = useState(q);
  const list = useAsync(
    () =>
      api.users.list(props.ws, {
        distinct_id_prefix: q || undefined,
        limit: 25,
        before: query.get('before') ?? undefined,
        after: query.get('after') ?? undefined,
      }),
    [props.ws, query.toString()],
  );
  return (
    <Page title="Users" subtitle="The people Herald notifies: profile, channels, preferences, and what they were sent.">
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ q: text.trim(), before: undefined, after: undefined });
        }}
      >
        <Field label="Search by distinct_id">
          <input
            type="search"
            name="distinct_id"
            value={text}
            onInput={(e) => setText(valueOf(e))}
            placeholder="starts with…"
          />
        </Field>
        <button type="submit">Search</button>
        {text.trim() && (
          <button type="button" onClick={() => navigate(`/users/${encodeURIComponent(text.trim())}`)}>
            Open “{text.trim()}”
          </button>
        )}
      </form>
      <PagedTable
        list={list}
        what="User search"
        empty={{
          title: q ? `No user's distinct_id starts with “${q}”.` : 'No users yet.',
          children: (
            <>
              Users are made by your backend (the SDKs' identify, or <code>POST /v1/user/</code>) or by a trigger that
              names a recipient.
            </>
          ),
        }}
        rowKey={(u) => str(u.distinct_id)}
        columns={[
          {
            header: 'distinct_id',
            cell: (u) => <Link to={`/users/${encodeURIComponent(str(u.distinct_id))}`}>{str(u.distinct_id)}</Link>,
          },
          { header: 'Name', cell: (u) => str(u.name ?? (u.properties as Record<string, unknown> | undefined)?.name) },
          {
            header: 'Email',
            cell: (u) => str(Array.isArray(u.$email) ? (u.$email[0] as Record<string, unknown>)?.value : u.$email),
          },
          { header: 'Created', cell: (u) => <Time at={str(u.created_at) || null} /> },
        ]}
      />
    </Page>
  );
}

export function UserDetail(props: { ws: string; id: string }) {
  const user = useAsync(() => api.users.get(props.ws, props.id), [props.ws, props.id]);
  const preferences = useAsync(() => api.users.preferences(props.ws, props.id), [props.ws, props.id]);
  const lists = useAsync(() => api.users.lists(props.ws, props.id), [props.ws, props.id]);
  const objects = useAsync(() => api.users.objects(props.ws, props.id), [props.ws, props.id]);
  const messages = useAsync(
    () => api.messages.list(props.ws, { recipient_id: props.id, order: 'desc', limit: 10 }),
    [props.ws, props.id],
  );
  const runs = useAsync(() => api.runs.list(props.ws, { recipient_id: props.id, limit: 10 }), [props.ws, props.id]);
  return (
    <Page
      title={`User ${props.id}`}
      subtitle="Profile and channels, preferences as Herald evaluates them, lists, messages and runs."
    >
      <div class="split">
        <div class="pane">
          <h2>Profile and channels</h2>
          {user.error ? (
            <ErrorNotice error={user.error} what="User profiles" />
          ) : !user.data ? (
            <Loading />
          ) : (
            <Json value={user.data} />
          )}
          <h2>Lists</h2>
          {lists.error ? (
            <ErrorNotice error={lists.error} what="Lists" />
          ) : !lists.data ? (
            <Loading />
          ) : lists.data.results.length === 0 ? (
            <Empty title="In no list." />
          ) : (
            <ul class="plain" aria-label="Lists">
              {lists.data.results.map((row) => (
                <li key={row.list.list_id}>
                  <code>{row.list.list_id}</code> {row.list.list_name ?? ''} · since <Time at={row.created_at} />
                </li>
              ))}
            </ul>
          )}
          <h2>Subscribed to</h2>
          {objects.error ? (
            <ErrorNotice error={objects.error} what="Subscriptions" />
          ) : !objects.data ? (
            <Loading />
          ) : objects.data.results.length === 0 ? (
            <Empty title="Subscribed to no object." />
          ) : (
            <Json value={objects.data.results} />
          )}
        </div>
        <div class="pane">
          <h2>Preferences</h2>
          {preferences.error ? (
            <ErrorNotice error={preferences.error} what="Evaluated preferences" />
          ) : !preferences.data ? (
            <Loading />
          ) : (
            <PreferenceGrid evaluations={preferences.data} />
          )}
          <h2>Latest messages</h2>
          {messages.error ? (
            <ErrorNotice error={messages.error} what="The message log" />
          ) : !messages.data ? (
            <Loading />
          ) : messages.data.results.length === 0 ? (
            <Empty title="Nothing sent to this user yet." />
          ) : (
            <ul class="plain">
              {messages.data.results.map((m) => (
                <li key={m.message_id}>
                  <Link to={`/messages/${encodeURIComponent(m.message_id)}`}>{m.workflow.slug}</Link> · {m.channel}{' '}
                  <StatusBadge status={m.status} />
                </li>
              ))}
            </ul>
          )}
          <p>
            <Link to={`/messages?recipient_id=${encodeURIComponent(props.id)}`}>All their messages</Link> ·{' '}
            <Link to={`/runs?recipient_id=${encodeURIComponent(props.id)}`}>All their runs</Link>
          </p>
          <h2>Latest runs</h2>
          {runs.error ? (
            <ErrorNotice error={runs.error} what="Run traces" />
          ) : !runs.data ? (
            <Loading />
          ) : runs.data.results.length === 0 ? (
            <Empty title="No runs for this user yet." />
          ) : (
            <ul class="plain">
              {runs.data.results.map((x) => (
                <li key={x.execution_id}>
                  <Link to={`/runs/${encodeURIComponent(x.execution_id)}`}>{x.workflow.slug}</Link>{' '}
                  <StatusBadge status={x.status} /> <Time at={x.created_at} />
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </Page>
  );
}

/** Every category (rows) on every channel (columns): would it reach the user, and the rule that decided. */
function PreferenceGrid(props: { evaluations: PreferenceEvaluations }) {
  const { results, tenant_id } = props.evaluations;
  if (results.length === 0)
    return <Empty title="No preference categories are live.">Define and commit them on the Preferences page.</Empty>;
  const categories = [...new Set(results.map((r) => r.category))];
  const channels = [...new Set(results.map((r) => r.channel))];
  const cell = new Map(results.map((r) => [`${r.category}\u0000${r.channel}`, r]));
  return (
    <>
      <p class="muted small">
        As Herald decides a delivery, in tenant <code>{tenant_id}</code>: each cell names the rule that decided.
      </p>
      <div class="scroll">
        <table class="table compact" aria-label="Evaluated preferences">
          <thead>
            <tr>
              <th scope="col">Category</th>
              {channels.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {categories.map((category) => (
              <tr key={category}>
                <th scope="row" class="mono">
                  {category}
                </th>
                {channels.map((channel) => {
                  const r = cell.get(`${category}\u0000${channel}`)!;
                  return (
                    <td key={channel} title={r.message}>
                      <Badge tone={r.allowed ? 'ok' : 'bad'}>{r.allowed ? 'sends' : 'blocked'}</Badge>
                      <div class="small muted">{r.reason}</div>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
