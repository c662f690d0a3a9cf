import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { valueOf } from '../components/ui';

export function SignIn(props: { onSignedIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api.workspaces(token.trim());
      props.onSignedIn(token.trim());
    } catch (e) {
      setError(
        e instanceof ApiError && e.status === 401 ? 'That service token is not valid.' : String((e as Error).message),
      );
    } finally {
      setBusy(false);
    }
  }
  return (
    <main class="signin" id="main">
      <form class="card signin-card" onSubmit={submit}>
        <div class="brand big">
          <span class="logo" aria-hidden="true">
            H
          </span>
          Herald
        </div>
        <h1>Sign in</h1>
        <p class="muted">
          Paste a service token. It stays in this tab only and is forgotten when you sign out or close the tab.
        </p>
        <label class="field">
          <span class="label">Service token</span>
          <input
            type="password"
            name="service-token"
            autocomplete="off"
            required
            autofocus
            value={token}
            onInput={(e) => setToken(valueOf(e))}
          />
        </label>
        {error && (
          <p class="notice error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted small">
          No token? <code>herald workspace create</code> prints one, as does the{' '}
          <code>POST /management/v1/workspace/</code> call that made your workspace.
        </p>
      </form>
    </main>
  );
}
