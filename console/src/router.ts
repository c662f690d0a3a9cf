import { useEffect, useState } from 'preact/hooks';

/** A small History API router under /console/: paths and filters live in the URL, the token never does. */
const BASE = '/console';

export interface Location {
  path: string;
  query: URLSearchParams;
}

const current = (): Location => ({
  path: location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/',
  query: new URLSearchParams(location.search),
});

export function navigate(to: string, options: { replace?: boolean } = {}) {
  const url = `${BASE}${to}`;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new Event('herald:navigate'));
  window.scrollTo(0, 0);
}

/** Replaces the query string (filters, page) without a new history entry per keystroke. */
export function setQuery(values: Record<string, string | undefined>) {
  const { path, query } = current();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || value === '') query.delete(key);
    else query.set(key, value);
  }
  const text = query.toString();
  navigate(`${path}${text ? `?${text}` : ''}`, { replace: true });
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    window.addEventListener('popstate', update);
    window.addEventListener('herald:navigate', update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('herald:navigate', update);
    };
  }, []);
  return location;
}

/** Matches `/workflows/:slug` against a path; the values are decoded. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i]!;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(s[i]!);
    else if (part !== s[i]) return null;
  }
  return params;
}

export const href = (to: string) => `${BASE}${to}`;
