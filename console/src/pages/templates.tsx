import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { useAsync, useDebounced } from '../hooks';
import { navigate, setQuery, useLocation } from '../router';
import { CommitForm } from '../components/commit-form';
import { PreviewFrame } from '../components/preview-frame';
import {
  Badge,
  Dialog,
  Empty,
  ErrorNotice,
  Field,
  Link,
  Loading,
  OffsetPager,
  Page,
  StatusBadge,
  Time,
  valueOf,
} from '../components/ui';
import type { Preview, Template, Variant } from '../types';

const LIMIT = 20;
export const CHANNELS = ['email', 'sms', 'whatsapp', 'inbox', 'webpush', 'androidpush', 'iospush', 'slack', 'ms_teams'];

/** The fields each channel's editor offers (docs/channels.md, "Templates"); bold ones are required there. */
const FIELDS: Record<string, { key: string; label: string; multiline?: boolean }[]> = {
  email: [
    { key: 'subject', label: 'Subject' },
    { key: 'html', label: 'HTML body', multiline: true },
    { key: 'text', label: 'Plain-text body', multiline: true },
  ],
  inbox: [
    { key: 'header', label: 'Header' },
    { key: 'text', label: 'Text', multiline: true },
    { key: 'url', label: 'Link' },
  ],
  webpush: [
    { key: 'title', label: 'Title' },
    { key: 'body', label: 'Body', multiline: true },
    { key: 'url', label: 'Link' },
  ],
  androidpush: [
    { key: 'title', label: 'Title' },
    { key: 'body', label: 'Body', multiline: true },
  ],
  iospush: [
    { key: 'title', label: 'Title' },
    { key: 'body', label: 'Body', multiline: true },
  ],
};
const fieldsOf = (channel: string) => FIELDS[channel] ?? [{ key: 'text', label: 'Text', multiline: true }];

export function TemplateList(props: { ws: string }) {
  const { query } = useLocation();
  const offset = Number(query.get('offset') ?? 0) || 0;
  const q = query.get('q') ?? '';
  const list = useAsync(() => api.templates.list(props.ws, { limit: LIMIT, offset, q }), [props.ws, offset, q]);
  const [creating, setCreating] = useState(false);
  return (
    <Page
      title="Templates"
      subtitle="What a message says, per channel, locale and tenant."
      actions={
        <button type="button" class="primary" onClick={() => setCreating(true)}>
          New template
        </button>
      }
    >
      <div class="filters">
        <Field label="Search">
          <input
            type="search"
            placeholder="name or slug"
            value={q}
            onInput={(e) => setQuery({ q: valueOf(e), offset: undefined })}
          />
        </Field>
      </div>
      {list.error ? (
        <ErrorNotice error={list.error} />
      ) : !list.data ? (
        <Loading />
      ) : list.data.meta.count === 0 ? (
        <Empty title={q ? 'No template matches.' : 'No templates yet.'}>
          {q ? (
            'Try another search.'
          ) : (
            <>
              Create one with <strong>New template</strong>, write its email or SMS, and watch the preview as you type.
            </>
          )}
        </Empty>
      ) : (
        <>
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Template</th>
                <th scope="col">Channels</th>
                <th scope="col">Status</th>
                <th scope="col">Last change</th>
              </tr>
            </thead>
            <tbody>
              {list.data.results.map((t) => (
                <tr key={t.slug}>
                  <td>
                    <Link to={`/templates/${encodeURIComponent(t.slug)}`}>{t.name}</Link>
                    <div class="muted small mono">{t.slug}</div>
                  </td>
                  <td>
                    {t.enabled_channels.length === 0 ? (
                      <span class="muted">none</span>
                    ) : (
                      t.enabled_channels.map((c) => <Badge key={c}>{c}</Badge>)
                    )}
                  </td>
                  <td>
                    <StatusBadge status={t.status} />
                  </td>
                  <td>
                    <Time at={t.updated_at} />
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
      {creating && <NewTemplate ws={props.ws} onClose={() => setCreating(false)} />}
    </Page>
  );
}

function NewTemplate(props: { ws: string; onClose: () => void }) {
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [channels, setChannels] = useState<string[]>(['email']);
  const [error, setError] = useState<unknown>();
  async function submit(event: Event) {
    event.preventDefault();
    try {
      await api.templates.save(props.ws, slug, { name, enabled_channels: channels });
      navigate(`/templates/${encodeURIComponent(slug)}`);
    } catch (e) {
      setError(e);
    }
  }
  return (
    <Dialog title="New template" onClose={props.onClose}>
      <form class="stack" onSubmit={submit}>
        <Field label="Slug" hint="Workflows name the template by it.">
          <input name="slug" required pattern="[a-z0-9_\-]+" value={slug} onInput={(e) => setSlug(valueOf(e))} />
        </Field>
        <Field label="Name">
          <input name="name" required value={name} onInput={(e) => setName(valueOf(e))} />
        </Field>
        <fieldset class="checks">
          <legend>Channels</legend>
          {CHANNELS.map((c) => (
            <label key={c}>
              <input
                type="checkbox"
                checked={channels.includes(c)}
                onChange={(e) =>
                  setChannels(e.currentTarget.checked ? [...channels, c] : channels.filter((x) => x !== c))
                }
              />{' '}
              {c}
            </label>
          ))}
        </fieldset>
        {error !== undefined && <ErrorNotice error={error} />}
        <div class="row">
          <button type="submit" class="primary">
            Create template
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function TemplateDetail(props: { ws: string; slug: string }) {
  const template = useAsync(() => api.templates.get(props.ws, props.slug), [props.ws, props.slug]);
  const variants = useAsync(() => api.templates.variants(props.ws, props.slug), [props.ws, props.slug]);
  const [channel, setChannel] = useState<string | undefined>();
  const [variantId, setVariantId] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [adding, setAdding] = useState(false);
  const t = template.data;
  useEffect(() => {
    if (t && !channel) setChannel(t.enabled_channels[0]);
  }, [t]);
  const ofChannel = (variants.data?.results ?? []).filter((v) => v.channel === channel);
  useEffect(() => {
    if (ofChannel.length && !ofChannel.some((v) => v.id === variantId)) setVariantId(ofChannel[0]!.id);
    if (!ofChannel.length) setVariantId(undefined);
  }, [channel, variants.data]);

  if (template.error)
    return (
      <Page title="Template">
        <ErrorNotice error={template.error} />
      </Page>
    );
  if (!t)
    return (
      <Page title="Template">
        <Loading />
      </Page>
    );

  async function commit(message: string) {
    setError(undefined);
    try {
      const next = await api.templates.commit(props.ws, props.slug, message);
      setNotice(`Committed: version ${next.version_no ?? ''} is live.`);
      template.reload();
      return true;
    } catch (e) {
      setError(e);
      return false;
    }
  }
  async function toggleChannel(c: string, on: boolean) {
    setError(undefined);
    try {
      const enabled = on ? [...t!.enabled_channels, c] : t!.enabled_channels.filter((x) => x !== c);
      await api.templates.save(props.ws, props.slug, {
        name: t!.name,
        description: t!.description,
        tags: t!.tags,
        enabled_channels: enabled,
      });
      template.reload();
      if (on) setChannel(c);
    } catch (e) {
      setError(e);
    }
  }

  return (
    <Page
      title={t.name}
      subtitle={
        <>
          <span class="mono">{t.slug}</span> · <StatusBadge status={t.status} /> · changed <Time at={t.updated_at} />
        </>
      }
    >
      {notice && (
        <p class="notice ok" role="status">
          {notice}
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      <div class="tabs" role="tablist" aria-label="Channels">
        {t.enabled_channels.map((c) => (
          <button
            key={c}
            type="button"
            role="tab"
            aria-selected={channel === c}
            class={channel === c ? 'tab active' : 'tab'}
            onClick={() => setChannel(c)}
          >
            {c}
          </button>
        ))}
        <details class="add-channel">
          <summary>Channels…</summary>
          <div class="checks">
            {CHANNELS.map((c) => (
              <label key={c}>
                <input
                  type="checkbox"
                  checked={t.enabled_channels.includes(c)}
                  onChange={(e) => toggleChannel(c, e.currentTarget.checked)}
                />{' '}
                {c}
              </label>
            ))}
          </div>
        </details>
      </div>
      {!channel ? (
        <Empty title="No channel is enabled.">Enable a channel under “Channels…” to write its content.</Empty>
      ) : (
        <>
          <div class="variants row">
            <span class="label">Variants</span>
            {ofChannel.map((v) => (
              <button
                key={v.id}
                type="button"
                class={v.id === variantId ? 'chip active' : 'chip'}
                onClick={() => setVariantId(v.id)}
                aria-pressed={v.id === variantId}
              >
                {v.id} · {v.locale}
                {v.tenant_id ? ` · ${v.tenant_id}` : ''}
                {v.has_error && <Badge tone="bad">error</Badge>}
              </button>
            ))}
            <button type="button" class="chip ghost" onClick={() => setAdding(true)}>
              + Add variant
            </button>
          </div>
          {variantId ? (
            <VariantEditor
              key={`${channel}/${variantId}`}
              ws={props.ws}
              template={t}
              channel={channel}
              variantId={variantId}
              onSaved={() => variants.reload()}
            />
          ) : (
            <VariantEditor
              key={`${channel}/new`}
              ws={props.ws}
              template={t}
              channel={channel}
              variantId="default"
              fresh
              onSaved={() => variants.reload()}
            />
          )}
        </>
      )}
      <CommitForm label="Commit template" onCommit={commit} />
      {adding && channel && (
        <NewVariant
          ws={props.ws}
          slug={props.slug}
          channel={channel}
          onClose={() => setAdding(false)}
          onCreated={(id) => {
            setAdding(false);
            variants.reload();
            setVariantId(id);
          }}
        />
      )}
    </Page>
  );
}

function NewVariant(props: {
  ws: string;
  slug: string;
  channel: string;
  onClose: () => void;
  onCreated: (id: string) => void;
}) {
  const [id, setId] = useState('');
  const [locale, setLocale] = useState('en');
  const [tenant, setTenant] = useState('');
  const [error, setError] = useState<unknown>();
  async function submit(event: Event) {
    event.preventDefault();
    try {
      const content = Object.fromEntries(fieldsOf(props.channel).map((f) => [f.key, '']));
      await api.templates.saveVariant(props.ws, props.slug, props.channel, id, {
        locale,
        tenant_id: tenant || null,
        content,
      });
      props.onCreated(id);
    } catch (e) {
      setError(e);
    }
  }
  return (
    <Dialog title={`New ${props.channel} variant`} onClose={props.onClose}>
      <form class="stack" onSubmit={submit}>
        <Field label="Variant id">
          <input required pattern="[A-Za-z0-9_\-]+" value={id} onInput={(e) => setId(valueOf(e))} />
        </Field>
        <Field label="Locale" hint="e.g. en, es, es-MX: the recipient's locale picks it.">
          <input required value={locale} onInput={(e) => setLocale(valueOf(e))} />
        </Field>
        <Field label="Tenant (optional)">
          <input value={tenant} onInput={(e) => setTenant(valueOf(e))} />
        </Field>
        {error !== undefined && <ErrorNotice error={error} />}
        <button type="submit" class="primary">
          Add variant
        </button>
      </form>
    </Dialog>
  );
}

/**
 * One variant's content beside its preview. Every edit is saved to the draft (debounced), then
 * Herald renders the draft: the preview is exactly what a delivery of this draft would carry.
 */
function VariantEditor(props: {
  ws: string;
  template: Template;
  channel: string;
  variantId: string;
  fresh?: boolean;
  onSaved: () => void;
}) {
  const [variant, setVariant] = useState<Variant | undefined>();
  const [content, setContent] = useState<Record<string, unknown> | undefined>();
  const [locale, setLocale] = useState('en');
  const [data, setData] = useState('{\n  "name": "Ada"\n}');
  const [distinctId, setDistinctId] = useState('');
  const [saveState, setSaveState] = useState<'saved' | 'saving' | 'unsaved' | 'error'>('saved');
  const [saveError, setSaveError] = useState<unknown>();
  const [preview, setPreview] = useState<Preview | undefined>();
  const [previewError, setPreviewError] = useState<unknown>();
  const loaded = useRef(false);
  const lastSaved = useRef<string | undefined>(undefined);

  useEffect(() => {
    const empty = Object.fromEntries(fieldsOf(props.channel).map((f) => [f.key, '']));
    if (props.fresh) {
      setContent(empty);
      loaded.current = true;
      return;
    }
    api.templates.variant(props.ws, props.template.slug, props.channel, props.variantId).then(
      (v) => {
        setVariant(v);
        setLocale(v.locale);
        const initial = { ...empty, ...(v.content ?? {}) };
        lastSaved.current = JSON.stringify(initial);
        setContent(initial);
        loaded.current = true;
      },
      (e: unknown) => setSaveError(e),
    );
  }, []);

  const edits = useDebounced(content, 500);
  const settledData = useDebounced(data, 500);
  const settledUser = useDebounced(distinctId, 500);
  const [revision, setRevision] = useState(0);

  useEffect(() => {
    if (!loaded.current || edits === undefined) return;
    if (JSON.stringify(edits) === lastSaved.current) {
      // Nothing new to save (the variant as loaded): render it once.
      if (revision === 0) setRevision(1);
      return;
    }
    let cancelled = false;
    const sent = JSON.stringify(edits);
    setSaveState('saving');
    api.templates
      .saveVariant(props.ws, props.template.slug, props.channel, props.variantId, {
        locale,
        tenant_id: variant?.tenant_id ?? null,
        content: edits,
      })
      .then(
        (v) => {
          if (cancelled) return;
          setVariant(v);
          lastSaved.current = sent;
          setSaveState('saved');
          setSaveError(undefined);
          setRevision((r) => r + 1);
          if (props.fresh) props.onSaved();
        },
        (e: unknown) => {
          if (cancelled) return;
          setSaveState('error');
          setSaveError(e);
        },
      );
    return () => {
      cancelled = true;
    };
  }, [edits]);

  useEffect(() => {
    if (revision === 0) return;
    let parsed: unknown;
    try {
      parsed = settledData.trim() ? JSON.parse(settledData) : {};
    } catch (e) {
      setPreviewError(new Error(`mock data is not valid JSON: ${(e as Error).message}`));
      return;
    }
    let cancelled = false;
    api.templates
      .preview(props.ws, props.template.slug, {
        channel: props.channel,
        mode: 'draft',
        variant_id: props.variantId,
        data: parsed,
        ...(settledUser ? { distinct_id: settledUser } : {}),
      })
      .then(
        (p) => {
          if (cancelled) return;
          setPreview(p);
          setPreviewError(undefined);
        },
        (e: unknown) => !cancelled && setPreviewError(e),
      );
    return () => {
      cancelled = true;
    };
  }, [revision, settledData, settledUser]);

  if (!content) return saveError ? <ErrorNotice error={saveError} /> : <Loading />;
  const variantErrors = Object.entries(variant?.errors ?? {});
  return (
    <div class="split">
      <div class="pane stack">
        <h2>
          {props.channel} · {props.variantId}
        </h2>
        {fieldsOf(props.channel).map((f) => (
          <Field key={f.key} label={f.label}>
            {f.multiline ? (
              <textarea
                class="code"
                name={f.key}
                rows={f.key === 'html' ? 12 : 5}
                spellcheck={false}
                value={String(content[f.key] ?? '')}
                onInput={(e) => {
                  setContent({ ...content, [f.key]: valueOf(e) });
                  setSaveState('unsaved');
                }}
              />
            ) : (
              <input
                name={f.key}
                value={String(content[f.key] ?? '')}
                onInput={(e) => {
                  setContent({ ...content, [f.key]: valueOf(e) });
                  setSaveState('unsaved');
                }}
              />
            )}
          </Field>
        ))}
        <p class={`small save-state ${saveState}`} role="status">
          {saveState === 'saved'
            ? 'Draft saved'
            : saveState === 'saving'
              ? 'Saving…'
              : saveState === 'unsaved'
                ? 'Editing…'
                : 'Not saved'}
        </p>
        {saveError !== undefined && <ErrorNotice error={saveError} />}
        {variantErrors.length > 0 && (
          <div class="notice error" role="alert">
            {variantErrors.map(([k, v]) => (
              <div key={k}>
                <strong>{k}</strong>: {v.join('; ')}
              </div>
            ))}
          </div>
        )}
      </div>
      <div class="pane stack">
        <h2>Preview</h2>
        <div class="row top">
          <Field label="Mock data (JSON)">
            <textarea class="code" rows={4} value={data} onInput={(e) => setData(valueOf(e))} />
          </Field>
          <Field label="Or a user (distinct_id)">
            <input value={distinctId} onInput={(e) => setDistinctId(valueOf(e))} />
          </Field>
        </div>
        {previewError !== undefined ? (
          <PreviewProblem error={previewError} />
        ) : preview ? (
          <div aria-label="Preview" class="preview-box">
            <p class="muted small">
              Rendered by Herald: variant {preview.variant_id}, locale {preview.locale}
            </p>
            <PreviewFrame channel={preview.channel} content={preview.content} title="Template preview" />
          </div>
        ) : (
          <Loading />
        )}
      </div>
    </div>
  );
}

function PreviewProblem(props: { error: unknown }) {
  if (props.error instanceof ApiError && props.error.status === 400)
    return (
      <div class="notice error" role="alert">
        <strong>Template error:</strong> {props.error.message}
      </div>
    );
  return <ErrorNotice error={props.error} what="The live preview" />;
}
