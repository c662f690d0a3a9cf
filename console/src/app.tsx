import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { Link, valueOf } from './components/ui';
import { match, navigate, useLocation } from './router';
import { session } from './session';
import type { Workspace } from './types';
import { SignIn } from './pages/sign-in';
import { WorkflowList, WorkflowDetail } from './pages/workflows';
import { TemplateList, TemplateDetail } from './pages/templates';
import { Vendors } from './pages/vendors';
import { Users, UserDetail } from './pages/users';
import { Messages, MessageDetail } from './pages/messages';
import { Runs, RunDetail } from './pages/runs';
import { Preferences } from './pages/preferences';
import { Keys } from './pages/keys';
import { Queue } from './pages/queue';
import { Page, Empty } from './components/ui';

const NAV = [
  ['Workflows', '/workflows'],
  ['Templates', '/templates'],
  ['Vendors', '/vendors'],
  ['Users', '/users'],
  ['Messages', '/messages'],
  ['Runs', '/runs'],
  ['Preferences', '/preferences'],
  ['Keys', '/keys'],
  ['Queue', '/queue'],
] as const;

type Route = [string, (p: Record<string, string>, ws: string) => preact.JSX.Element];
const ROUTES: Route[] = [
  ['/workflows', (_p, ws) => <WorkflowList ws={ws} />],
  ['/workflows/:slug', (p, ws) => <WorkflowDetail ws={ws} slug={p.slug!} />],
  ['/templates', (_p, ws) => <TemplateList ws={ws} />],
  ['/templates/:slug', (p, ws) => <TemplateDetail ws={ws} slug={p.slug!} />],
  ['/vendors', (_p, ws) => <Vendors ws={ws} />],
  ['/users', (_p, ws) => <Users ws={ws} />],
  ['/users/:id', (p, ws) => <UserDetail ws={ws} id={p.id!} />],
  ['/messages', (_p, ws) => <Messages ws={ws} />],
  ['/messages/:id', (p, ws) => <MessageDetail ws={ws} id={p.id!} />],
  ['/runs', (_p, ws) => <Runs ws={ws} />],
  ['/runs/:id', (p, ws) => <RunDetail ws={ws} id={p.id!} />],
  ['/preferences', (_p, ws) => <Preferences ws={ws} />],
  ['/keys', (_p, ws) => <Keys ws={ws} />],
  ['/queue', (_p, ws) => <Queue ws={ws} />],
];

export function App() {
  const [token, setToken] = useState(session.token());
  const [workspaces, setWorkspaces] = useState<Workspace[] | undefined>();
  const [workspace, setWorkspace] = useState(session.workspace());
  const { path } = useLocation();

  useEffect(() => {
    if (!token) return;
    api.workspaces().then(
      (list) => {
        setWorkspaces(list.results);
        const chosen = list.results.find((w) => w.slug === session.workspace()) ?? list.results[0];
        if (chosen) {
          session.setWorkspace(chosen.slug);
          setWorkspace(chosen.slug);
        }
      },
      () => signOut(),
    );
  }, [token]);

  function signOut() {
    session.signOut();
    setToken(null);
    setWorkspaces(undefined);
    setWorkspace(null);
    navigate('/', { replace: true });
  }

  if (!token)
    return (
      <SignIn
        onSignedIn={(t) => {
          session.signIn(t);
          setToken(t);
          if (path === '/') navigate('/workflows', { replace: true });
        }}
      />
    );

  const ws = workspace;
  let content: preact.JSX.Element | null = null;
  if (ws) {
    for (const [pattern, view] of ROUTES) {
      const params = match(pattern, path);
      if (params) {
        content = view(params, ws);
        break;
      }
    }
    if (!content && path === '/') {
      navigate('/workflows', { replace: true });
      return null;
    }
    content ??= (
      <Page title="Not found">
        <Empty title="There is no page here.">
          <Link to="/workflows">Go to Workflows</Link>
        </Empty>
      </Page>
    );
  }
  const section = '/' + (path.split('/')[1] ?? '');

  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <aside class="sidebar">
        <div class="brand">
          <span class="logo" aria-hidden="true">
            H
          </span>
          Herald
        </div>
        <label class="switcher">
          <span class="label">Workspace</span>
          <select
            aria-label="Workspace"
            value={ws ?? ''}
            onChange={(event) => {
              const slug = valueOf(event);
              session.setWorkspace(slug);
              setWorkspace(slug);
              navigate(section === '/' ? '/workflows' : section);
            }}
          >
            {(workspaces ?? []).map((w) => (
              <option key={w.slug} value={w.slug}>
                {w.name === w.slug ? w.slug : `${w.name} (${w.slug})`}
              </option>
            ))}
          </select>
        </label>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([label, to]) => (
              <li key={to}>
                <Link
                  to={to}
                  class={section === to ? 'active' : undefined}
                  aria-current={section === to ? 'page' : undefined}
                >
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="ghost signout" onClick={signOut}>
          Sign out
        </button>
      </aside>
      <main id="main" tabIndex={-1}>
        {ws ? content : <p class="muted loading">Loading workspaces…</p>}
      </main>
    </div>
  );
}
