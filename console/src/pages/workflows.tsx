import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { useAsync } from '../hooks';
import { navigate, setQuery, useLocation } from '../router';
import { TreeDiagram } from '../components/tree-diagram';
import { lineDiff } from '../components/diff';
import {
  Badge,
  Dialog,
  Empty,
  ErrorNotice,
  Field,
  Json,
  Link,
  Loading,
  OffsetPager,
  Page,
  StatusBadge,
  Time,
  valueOf,
} from '../components/ui';
import { CommitForm } from '../components/commit-form';
import { PreviewFrame } from '../components/preview-frame';
import type { TestRunDelivery, Workflow } from '../types';

const LIMIT = 20;

export function WorkflowList(props: { ws: string }) {
  const { query } = useLocation();
  const offset = Number(query.get('offset') ?? 0) || 0;
  const mode = query.get('mode') === 'live' ? 'live' : 'draft';
  const search = query.get('q') ?? '';
  const list = useAsync(() => api.workflows.list(props.ws, { limit: LIMIT, offset, mode }), [props.ws, offset, mode]);
  const [creating, setCreating] = useState(false);
  const rows = (list.data?.results ?? []).filter(
    (w) => !search || w.slug.includes(search.toLowerCase()) || w.name.toLowerCase().includes(search.toLowerCase()),
  );
  return (
    <Page
      title="Workflows"
      subtitle="What happens after a trigger: who gets what, on which channel, when."
      actions={
        <button type="button" class="primary" onClick={() => setCreating(true)}>
          New workflow
        </button>
      }
    >
      <div class="filters">
        <Field label="Search">
          <input
            type="search"
            value={search}
            placeholder="slug or name"
            onInput={(e) => setQuery({ q: valueOf(e), offset: undefined })}
          />
        </Field>
        <Field label="Version">
          <select
            value={mode}
            onChange={(e) => setQuery({ mode: valueOf(e) === 'live' ? 'live' : undefined, offset: undefined })}
          >
            <option value="draft">Draft</option>
            <option value="live">Live</option>
          </select>
        </Field>
      </div>
      {list.error ? (
        <ErrorNotice error={list.error} />
      ) : !list.data ? (
        <Loading />
      ) : list.data.meta.count === 0 ? (
        <Empty title={mode === 'live' ? 'No workflow is live yet.' : 'No workflows yet.'}>
          Create one with <strong>New workflow</strong>: give it a slug, draw its steps, commit it, and trigger it with
          an API key.
        </Empty>
      ) : (
        <>
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Workflow</th>
                <th scope="col">Status</th>
                <th scope="col">Enabled</th>
                <th scope="col">Version</th>
                <th scope="col">Last change</th>
                <th scope="col">Last run</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((w) => (
                <tr key={w.slug}>
                  <td>
                    <Link to={`/workflows/${encodeURIComponent(w.slug)}`}>{w.name}</Link>
                    <div class="muted small mono">{w.slug}</div>
                  </td>
                  <td>
                    <StatusBadge status={w.status === 'active' ? 'live' : w.status} />
                    {!w.validation_result.is_valid && <Badge tone="bad">invalid</Badge>}
                  </td>
                  <td>{w.is_enabled ? <Badge tone="ok">enabled</Badge> : <Badge tone="warn">disabled</Badge>}</td>
                  <td>v{w.version_no}</td>
                  <td>
                    <Time at={w.updated_at} />
                  </td>
                  <td>
                    <Time at={w.last_executed_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <OffsetPager
            offset={offset}
            limit={LIMIT}
            count={list.data.meta.count}
            onPage={(o) => setQuery({ offset: String(o) })}
          />
        </>
      )}
      {creating && <NewWorkflow ws={props.ws} onClose={() => setCreating(false)} />}
    </Page>
  );
}

function NewWorkflow(props: { ws: string; onClose: () => void }) {
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [category, setCategory] = useState('transactional');
  const [error, setError] = useState<unknown>();
  async function submit(event: Event) {
    event.preventDefault();
    try {
      const exists = await api.workflows.get(props.ws, slug, 'draft').then(
        () => true,
        (e: unknown) => (e instanceof ApiError && e.status === 404 ? false : Promise.reject(e)),
      );
      if (exists) throw new Error(`a workflow '${slug}' exists already`);
      await api.workflows.save(props.ws, slug, {
        name,
        category,
        trigger_type: 'api',
        tree: { nodes: [{ node_type: 'send_email', name: 'Email', properties: { template: 'welcome' } }] },
      });
      navigate(`/workflows/${encodeURIComponent(slug)}`);
    } catch (e) {
      setError(e);
    }
  }
  return (
    <Dialog title="New workflow" onClose={props.onClose}>
      <form onSubmit={submit} class="stack">
        <Field label="Slug" hint="Lowercase letters, digits, - and _. Triggers name the workflow by it.">
          <input name="slug" required pattern="[a-z0-9_\-]+" value={slug} onInput={(e) => setSlug(valueOf(e))} />
        </Field>
        <Field label="Name">
          <input name="name" required value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        <Field label="Category" hint="A preference category (Preferences page); it decides who may opt out.">
          <input name="category" required value={category} onInput={(e) => setCategory(valueOf(e))} />
        </Field>
        {error !== undefined && <ErrorNotice error={error} />}
        <div class="row">
          <button type="submit" class="primary">
            Create draft
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The fields of a workflow one edits: what POST takes. */
const editable = (w: Workflow) => ({
  name: w.name,
  description: w.description,
  category: w.category,
  trigger_type: w.trigger_type,
  trigger_events: w.trigger_events,
  tags: w.tags,
  tree: w.tree,
});

export function WorkflowDetail(props: { ws: string; slug: string }) {
  const draft = useAsync(() => api.workflows.get(props.ws, props.slug, 'draft'), [props.ws, props.slug]);
  const live = useAsync(
    () =>
      api.workflows
        .get(props.ws, props.slug, 'live')
        .catch((e: unknown) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e))),
    [props.ws, props.slug],
  );
  const [text, setText] = useState('');
  const [saved, setSaved] = useState<Workflow | undefined>();
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string | undefined>();
  const [tab, setTab] = useState<'editor' | 'changes' | 'test'>('editor');

  useEffect(() => {
    if (draft.data) {
      setSaved(draft.data);
      setText(JSON.stringify(editable(draft.data), null, 2));
    }
  }, [draft.data]);

  const parsed = useMemo(() => {
    try {
      return { value: JSON.parse(text) as Record<string, unknown> };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }, [text]);

  if (draft.error)
    return (
      <Page title="Workflow">
        <ErrorNotice error={draft.error} />
      </Page>
    );
  if (!saved)
    return (
      <Page title="Workflow">
        <Loading />
      </Page>
    );

  const dirty = parsed.value !== undefined && JSON.stringify(parsed.value) !== JSON.stringify(editable(saved));
  const errors = saved.validation_result.errors;

  async function save() {
    if (!parsed.value) return;
    setError(undefined);
    try {
      const next = await api.workflows.save(props.ws, props.slug, parsed.value);
      setSaved(next);
      setText(JSON.stringify(editable(next), null, 2));
      setNotice(
        next.validation_result.is_valid
          ? 'Draft saved. It is valid: commit it to make it live.'
          : 'Draft saved, with errors to fix before it can be committed.',
      );
    } catch (e) {
      setError(e);
    }
  }
  async function commit(message: string) {
    setError(undefined);
    try {
      await api.workflows.commit(props.ws, props.slug, message);
      setNotice('Committed: the draft is now live.');
      draft.reload();
      live.reload();
      return true;
    } catch (e) {
      setError(e);
      return false;
    }
  }
  async function toggle() {
    setError(undefined);
    try {
      const next = await api.workflows.enable(props.ws, props.slug, !saved!.is_enabled);
      setSaved({ ...saved!, is_enabled: next.is_enabled });
      setNotice(
        next.is_enabled ? 'Enabled: triggers start runs.' : 'Disabled: triggers are accepted but start no run.',
      );
    } catch (e) {
      setError(e);
    }
  }

  return (
    <Page
      title={saved.name}
      subtitle={
        <>
          <span class="mono">{saved.slug}</span> · draft v{saved.version_no}
          {live.data ? ` · live v${live.data.version_no}` : ' · never committed'} ·{' '}
          {saved.is_enabled ? <Badge tone="ok">enabled</Badge> : <Badge tone="warn">disabled</Badge>}
        </>
      }
      actions={
        <>
          <Link to={`/runs?workflow_slug=${encodeURIComponent(props.slug)}`} class="button">
            Runs
          </Link>
          <button type="button" onClick={toggle}>
            {saved.is_enabled ? 'Disable' : 'Enable'}
          </button>
        </>
      }
    >
      <div class="tabs" role="tablist">
        {(['editor', 'changes', 'test'] as const).map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={tab === t}
            class={tab === t ? 'tab active' : 'tab'}
            onClick={() => setTab(t)}
          >
            {t === 'editor' ? 'Editor' : t === 'changes' ? 'Changes vs live' : 'Test run'}
          </button>
        ))}
      </div>
      {notice && (
        <p class="notice ok" role="status">
          {notice}
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {tab === 'editor' && (
        <div class="split">
          <div class="pane">
            <h2>Diagram</h2>
            <TreeDiagram tree={parsed.value ? parsed.value.tree : saved.tree} errors={dirty ? [] : errors} />
            {dirty && <p class="muted small">Save the draft to check it: errors then show on their node.</p>}
          </div>
          <div class="pane">
            <h2>
              <label for="workflow-json">Workflow JSON</label>
            </h2>
            <textarea
              id="workflow-json"
              class="code"
              spellcheck={false}
              rows={28}
              value={text}
              onInput={(e) => setText(valueOf(e))}
              aria-invalid={parsed.error ? true : undefined}
            />
            {parsed.error && (
              <p class="notice error" role="alert">
                Not valid JSON: {parsed.error}
              </p>
            )}
            {!dirty && errors.length > 0 && (
              <div class="notice error" role="alert">
                <strong>{errors.length} validation error(s)</strong>
                <ul>
                  {errors.map((e) => (
                    <li key={e}>{e}</li>
                  ))}
                </ul>
              </div>
            )}
            <div class="row">
              <button type="button" class="primary" disabled={!parsed.value || !dirty} onClick={save}>
                Save draft
              </button>
              <button type="button" disabled={!dirty} onClick={() => setText(JSON.stringify(editable(saved), null, 2))}>
                Discard changes
              </button>
            </div>
            <CommitForm disabled={dirty || !saved.validation_result.is_valid} onCommit={commit} />
          </div>
        </div>
      )}
      {tab === 'changes' && (
        <Changes
          live={live.data ? editable(live.data) : null}
          draft={parsed.value ?? editable(saved)}
          liveWorkflow={live.data ?? null}
        />
      )}
      {tab === 'test' && <TestRun ws={props.ws} slug={props.slug} hasLive={Boolean(live.data)} />}
    </Page>
  );
}

function Changes(props: { live: unknown; draft: unknown; liveWorkflow: Workflow | null }) {
  if (!props.live)
    return (
      <Empty title="Nothing is live yet.">
        Commit the draft: its first version becomes live, and changes after it show here.
      </Empty>
    );
  const lines = lineDiff(JSON.stringify(props.live, null, 2), JSON.stringify(props.draft, null, 2));
  const changed = lines.some((l) => l.kind !== 'same');
  return (
    <div>
      <p class="muted">
        Live v{props.liveWorkflow?.version_no}
        {props.liveWorkflow?.commit_message ? ` “${props.liveWorkflow.commit_message}”` : ''}, committed{' '}
        <Time at={props.liveWorkflow?.active_at} /> — against the draft.
      </p>
      {!changed ? (
        <Empty title="The draft is the same as the live version." />
      ) : (
        <pre class="diff" aria-label="Differences">
          {lines.map((l, i) => (
            <div key={i} class={`diff-${l.kind}`}>
              {l.kind === 'add' ? '+ ' : l.kind === 'remove' ? '- ' : '  '}
              {l.text}
            </div>
          ))}
        </pre>
      )}
    </div>
  );
}

function TestRun(props: { ws: string; slug: string; hasLive: boolean }) {
  const [mode, setMode] = useState<'draft' | 'live'>('draft');
  const [recipient, setRecipient] = useState('');
  const [data, setData] = useState('{}');
  const [result, setResult] = useState<Record<string, unknown> | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  async function run(event: Event) {
    event.preventDefault();
    setError(undefined);
    setResult(undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch (e) {
      setError(new Error(`data is not valid JSON: ${(e as Error).message}`));
      return;
    }
    setBusy(true);
    try {
      setResult(
        await api.workflows.testRun(props.ws, props.slug, {
          mode,
          recipient: { distinct_id: recipient },
          data: parsed,
        }),
      );
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }
  const steps = Array.isArray(result?.steps) ? (result.steps as Record<string, unknown>[]) : [];
  const status = typeof result?.status === 'string' ? result.status : undefined;
  return (
    <div class="split">
      <form class="pane stack" onSubmit={run}>
        <p class="muted">
          Walks the workflow for one recipient through the real delivery decision, vendor choice and rendering. Nothing
          is written, sent or queued; waits are reported, not waited.
        </p>
        <Field label="Version">
          <select value={mode} onChange={(e) => setMode(valueOf(e) === 'live' ? 'live' : 'draft')}>
            <option value="draft">Draft</option>
            <option value="live" disabled={!props.hasLive}>
              Live
            </option>
          </select>
        </Field>
        <Field label="Recipient distinct_id">
          <input name="recipient" required value={recipient} onInput={(e) => setRecipient(valueOf(e))} />
        </Field>
        <Field label="Data (JSON)">
          <textarea class="code" rows={8} value={data} onInput={(e) => setData(valueOf(e))} />
        </Field>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Running…' : 'Run test'}
        </button>
      </form>
      <div class="pane">
        <h2>Result</h2>
        {error !== undefined && <ErrorNotice error={error} what="Test run" />}
        {!result && error === undefined && <Empty title="No test run yet.">Pick a recipient and run the test.</Empty>}
        {status && (
          <p>
            The run would end <StatusBadge status={status} />. Nothing was written, sent or queued.
          </p>
        )}
        {result && (
          <ol class="timeline" aria-label="Test run steps">
            {steps.map((step, i) => (
              <li key={i} class="step">
                <div class="row">
                  <code>{String(step.node_ref ?? step.node_type ?? i)}</code>
                  <StatusBadge status={String(step.outcome ?? 'done')} />
                </div>
                {Array.isArray(step.deliveries) &&
                  (step.deliveries as TestRunDelivery[]).map((d, k) => (
                    <div key={k} class="delivery" aria-label={`Delivery on ${d.channel}`}>
                      <div class="small">
                        <strong>{d.channel}</strong>
                        {d.channel_identity !== null && d.channel_identity !== undefined && (
                          <>
                            {' '}
                            to{' '}
                            {typeof d.channel_identity === 'string'
                              ? d.channel_identity
                              : JSON.stringify(d.channel_identity)}
                          </>
                        )}
                        :{' '}
                        {d.decision.send ? (
                          <Badge tone="ok">would send</Badge>
                        ) : (
                          <Badge tone="bad">would not send</Badge>
                        )}
                        {d.decision.reason && <> ({d.decision.reason})</>}
                      </div>
                      <div class="small">
                        Vendor:{' '}
                        {d.vendor ? (
                          `${d.vendor.nickname ?? d.vendor.provider} (${d.vendor.provider})`
                        ) : (
                          <span class="muted">
                            {d.channel === 'inbox' ? 'none needed (Herald stores the inbox)' : 'none'}
                          </span>
                        )}
                      </div>
                      {d.error && <div class="small">Render error: {d.error}</div>}
                      {d.content && (
                        <PreviewFrame
                          channel={d.channel}
                          content={d.content}
                          title={`Rendered ${d.channel} content of ${String(step.node_ref)}`}
                        />
                      )}
                    </div>
                  ))}
                {step.detail !== undefined && step.detail !== null && <Json value={step.detail} />}
              </li>
            ))}
          </ol>
        )}
        {result && steps.length === 0 && <Json value={result} />}
      </div>
    </div>
  );
}
