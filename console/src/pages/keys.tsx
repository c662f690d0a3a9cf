import { useState } from 'preact/hooks';
import { api } from '../api';
import { useAsync } from '../hooks';
import { Badge, Empty, ErrorNotice, Field, Loading, Page, Time, valueOf } from '../components/ui';

/** API keys (Bearer, for triggers from a backend) and workspace key pairs (what the SDKs sign with). */
export function Keys(props: { ws: string }) {
  const apiKeys = useAsync(() => api.keys.apiKeys(props.ws), [props.ws]);
  const pairs = useAsync(() => api.keys.workspaceKeys(props.ws), [props.ws]);
  const [name, setName] = useState('');
  const [pairName, setPairName] = useState('');
  const [revealed, setRevealed] = useState<{ label: string; value: string } | undefined>();
  const [error, setError] = useState<unknown>();
  const act = async (what: () => Promise<unknown>, after: () => void) => {
    setError(undefined);
    try {
      await what();
      after();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Page title="Keys" subtitle="Credentials your backend and apps use to call Herald.">
      {error !== undefined && <ErrorNotice error={error} />}
      {revealed && (
        <div class="notice ok" role="status">
          <strong>{revealed.label}</strong> — copy it now, it is not shown again:
          <pre class="secret">{revealed.value}</pre>
          <button type="button" onClick={() => setRevealed(undefined)}>
            Done
          </button>
        </div>
      )}
      <section class="group">
        <h2>API keys</h2>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void act(
              async () => {
                const created = await api.keys.createApiKey(props.ws, name);
                setRevealed({ label: `API key “${created.name}”`, value: created.api_key });
              },
              () => {
                setName('');
                apiKeys.reload();
              },
            );
          }}
        >
          <Field label="New API key name">
            <input required value={name} onInput={(e) => setName(valueOf(e))} />
          </Field>
          <button type="submit" class="primary">
            Create API key
          </button>
        </form>
        {apiKeys.error ? (
          <ErrorNotice error={apiKeys.error} />
        ) : !apiKeys.data ? (
          <Loading />
        ) : apiKeys.data.results.length === 0 ? (
          <Empty title="No API keys.">Create one to trigger workflows from your backend.</Empty>
        ) : (
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {apiKeys.data.results.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td class="mono">{k.masked_api_key}</td>
                  <td>{k.is_deleted ? <Badge tone="warn">revoked</Badge> : <Badge tone="ok">active</Badge>}</td>
                  <td>
                    <Time at={k.created_at ?? null} />
                  </td>
                  <td class="actions">
                    {!k.is_deleted && (
                      <button
                        type="button"
                        onClick={() => act(() => api.keys.revokeApiKey(props.ws, k.id), apiKeys.reload)}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section class="group">
        <h2>Workspace keys</h2>
        <p class="muted">
          A key and its secret: the backend SDKs sign requests with them. Rotating replaces the secret at once.
        </p>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void act(
              async () => {
                const created = await api.keys.createWorkspaceKey(props.ws, pairName);
                setRevealed({ label: `Secret of ${created.key}`, value: created.secret });
              },
              () => {
                setPairName('');
                pairs.reload();
              },
            );
          }}
        >
          <Field label="New key pair name">
            <input required value={pairName} onInput={(e) => setPairName(valueOf(e))} />
          </Field>
          <button type="submit" class="primary">
            Create key pair
          </button>
        </form>
        {pairs.error ? (
          <ErrorNotice error={pairs.error} />
        ) : !pairs.data ? (
          <Loading />
        ) : (
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {pairs.data.results.map((k) => (
                <tr key={k.id}>
                  <td>
                    {k.name} {k.is_default && <Badge tone="info">default</Badge>}
                  </td>
                  <td class="mono">{k.key}</td>
                  <td>
                    {k.is_deleted ? (
                      <Badge tone="bad">deleted</Badge>
                    ) : k.is_active ? (
                      <Badge tone="ok">active</Badge>
                    ) : (
                      <Badge tone="warn">paused</Badge>
                    )}
                  </td>
                  <td class="actions">
                    {!k.is_deleted && (
                      <>
                        <button
                          type="button"
                          onClick={() =>
                            act(async () => {
                              const next = await api.keys.rotateWorkspaceKey(props.ws, k.id);
                              setRevealed({ label: `New secret of ${next.key}`, value: next.secret });
                            }, pairs.reload)
                          }
                        >
                          Rotate secret
                        </button>
                        <button
                          type="button"
                          onClick={() =>
                            act(() => api.keys.setWorkspaceKeyActive(props.ws, k.id, !k.is_active), pairs.reload)
                          }
                        >
                          {k.is_active ? 'Pause' : 'Resume'}
                        </button>
                        {!k.is_default && (
                          <button
                            type="button"
                            onClick={() => act(() => api.keys.deleteWorkspaceKey(props.ws, k.id), pairs.reload)}
                          >
                            Delete
                          </button>
                        )}
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Page>
  );
}
