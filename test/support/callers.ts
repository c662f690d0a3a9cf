import type { TestApp } from './app.js';
import type { WorkspaceFixture } from './fixtures.js';
import { signedHeaders } from './signing.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Both base-surface credentials of a workspace, as callers: its API key and its signed key pair. */
export const callersOf = (t: () => TestApp, ws: WorkspaceFixture) => ({
  'api key': (method: Method, url: string, payload?: unknown) =>
    t().app.inject({ method, url, headers: ws.base, ...(payload === undefined ? {} : { payload: payload as object }) }),
  'signed key': (method: Method, url: string, payload?: unknown) => {
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    return t().app.inject({
      method,
      url,
      payload: body,
      headers: signedHeaders({ key: ws.workspaceKey, secret: ws.workspaceSecret, method, url, body }),
    });
  },
});
