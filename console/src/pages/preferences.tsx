import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { CommitForm } from '../components/commit-form';
import { useAsync } from '../hooks';
import { ErrorNotice, Field, Loading, Page, valueOf } from '../components/ui';

/** The workspace's preference categories: edit the draft, see its validation, commit. */
export function Preferences(props: { ws: string }) {
  const draft = useAsync(
    () =>
      api.preferences
        .get(props.ws, 'draft')
        .catch((e: unknown) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e))),
    [props.ws],
  );
  const [text, setText] = useState('');
  const [result, setResult] = useState<Record<string, unknown> | undefined>();
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string | undefined>();

  useEffect(() => {
    if (draft.data !== undefined) {
      const body = draft.data ?? { root_categories: [] };
      setResult(body);
      setText(JSON.stringify(editable(body), null, 2));
    }
  }, [draft.data]);

  if (draft.error)
    return (
      <Page title="Preferences">
        <ErrorNotice error={draft.error} />
      </Page>
    );
  if (draft.data === undefined)
    return (
      <Page title="Preferences">
        <Loading />
      </Page>
    );

  const validation = (result?.validation_result as { is_valid: boolean; errors: string[] } | undefined) ?? undefined;

  async function save() {
    setError(undefined);
    setNotice(undefined);
    try {
      const next = await api.preferences.save(props.ws, JSON.parse(text));
      setResult(next);
      setNotice('Draft saved.');
    } catch (e) {
      setError(e);
    }
  }
  async function commit(message: string) {
    setError(undefined);
    try {
      const next = await api.preferences.commit(props.ws, message);
      setResult(next);
      setNotice('Committed: these categories are now live.');
      return true;
    } catch (e) {
      setError(e);
      return false;
    }
  }
  return (
    <Page title="Preferences" subtitle="The categories users opt in and out of, and their defaults per channel.">
      {notice && (
        <p class="notice ok" role="status">
          {notice}
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      <div class="split">
        <div class="pane stack">
          <Field
            label="Category draft (JSON)"
            hint="root_categories → sections → subcategories; each with its default preference and mandatory channels."
          >
            <textarea class="code" rows={26} spellcheck={false} value={text} onInput={(e) => setText(valueOf(e))} />
          </Field>
          <div class="row">
            <button type="button" class="primary" onClick={save}>
              Save draft
            </button>
          </div>
          <CommitForm onCommit={commit} />
        </div>
        <div class="pane">
          <h2>Validation</h2>
          {!validation ? (
            <p class="muted">Save the draft to validate it.</p>
          ) : validation.is_valid ? (
            <p class="notice ok">
              The draft is valid{result?.version_no ? ` (version ${String(result.version_no)})` : ''}.
            </p>
          ) : (
            <ul class="notice error">
              {validation.errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </Page>
  );
}

/** What the POST takes: the definition without its read-only fields. */
const editable = (body: Record<string, unknown>) => ({ root_categories: body.root_categories ?? [] });
