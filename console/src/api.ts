import { session } from './session';
import type {
  ApiKey,
  CreatedApiKey,
  CursorList,
  Execution,
  Message,
  OffsetList,
  PreferenceEvaluations,
  QueueOverview,
  SubscribedToList,
  Preview,
  Template,
  Variant,
  Vendor,
  VendorTestResult,
  Workflow,
  Workspace,
  WorkspaceKey,
} from './types';

/** The one client of Herald's management API: every page reads and writes through it. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
  /** The route does not exist on this server (an older Herald): pages show "not available". */
  get unavailable() {
    return this.status === 404 && typeof this.message === 'string' && this.message.startsWith('no route for');
  }
}

const prefix = () =>
  document.querySelector<HTMLMetaElement>('meta[name="herald-management-prefix"]')?.content ?? '/management';

type Query = Record<string, string | number | boolean | undefined | null | string[]>;

function queryString(query: Query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) value.forEach((v) => params.append(key, v));
    else params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Signs the request with the token held in session storage; the token never goes into a URL. */
export async function request<T>(
  method: string,
  path: string,
  options: { query?: Query; body?: unknown; token?: string } = {},
): Promise<T> {
  const token = options.token ?? session.token();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `ServiceToken ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${prefix()}${path}${queryString(options.query)}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'omit',
    cache: 'no-store',
  });
  const text = await response.text();
  const body: unknown = text ? safeJson(text) : null;
  if (!response.ok) {
    const message = messageOf(body) ?? `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message, body);
  }
  return body as T;
}

function messageOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return typeof body === 'string' && body ? body : undefined;
  const { message, detail } = body as { message?: unknown; detail?: unknown };
  if (typeof message === 'string') return message;
  return typeof detail === 'string' ? detail : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const ws = (workspace: string) => `/v1/${encodeURIComponent(workspace)}`;
const ws2 = (workspace: string) => `/v2/${encodeURIComponent(workspace)}`;
const seg = encodeURIComponent;

export const api = {
  /** Every workspace the token reaches, page by page: the switcher must offer all of them, not the first 100. */
  workspaces: async (token?: string): Promise<OffsetList<Workspace>> => {
    const results: Workspace[] = [];
    for (;;) {
      const page = await request<OffsetList<Workspace>>('GET', '/v1/workspace/', {
        query: { limit: 100, offset: results.length },
        token,
      });
      results.push(...page.results);
      if (page.results.length === 0 || results.length >= page.meta.count)
        return { meta: { count: page.meta.count, limit: results.length, offset: 0 }, results };
    }
  },

  workflows: {
    list: (w: string, query: Query) => request<OffsetList<Workflow>>('GET', `${ws(w)}/workflow/`, { query }),
    get: (w: string, slug: string, mode: 'draft' | 'live') =>
      request<Workflow>('GET', `${ws(w)}/workflow/${seg(slug)}/`, { query: { mode } }),
    save: (w: string, slug: string, body: unknown) =>
      request<Workflow>('POST', `${ws(w)}/workflow/${seg(slug)}/`, { body }),
    commit: (w: string, slug: string, message: string) =>
      request<Workflow>('PATCH', `${ws(w)}/workflow/${seg(slug)}/commit/`, { body: { commit_message: message } }),
    enable: (w: string, slug: string, isEnabled: boolean) =>
      request<Workflow>('PATCH', `${ws(w)}/workflow/${seg(slug)}/enable/`, { body: { is_enabled: isEnabled } }),
    testRun: (w: string, slug: string, body: unknown) =>
      request<Record<string, unknown>>('POST', `${ws(w)}/workflow/${seg(slug)}/test_run/`, { body }),
  },

  templates: {
    list: (w: string, query: Query) => request<OffsetList<Template>>('GET', `${ws2(w)}/template/`, { query }),
    get: (w: string, slug: string, mode: 'draft' | 'live' = 'draft') =>
      request<Template>('GET', `${ws2(w)}/template/${seg(slug)}/`, { query: { mode } }),
    save: (w: string, slug: string, body: unknown) =>
      request<Template>('POST', `${ws2(w)}/template/${seg(slug)}/`, { body }),
    commit: (w: string, slug: string, message: string) =>
      request<Template>('PATCH', `${ws2(w)}/template/${seg(slug)}/commit/`, {
        query: { commit_message: message },
        body: {},
      }),
    variants: (w: string, slug: string) =>
      request<OffsetList<Variant>>('GET', `${ws2(w)}/template/${seg(slug)}/variant/`),
    variant: (w: string, slug: string, channel: string, id: string) =>
      request<Variant>('GET', `${ws2(w)}/template/${seg(slug)}/channel/${seg(channel)}/variant/${seg(id)}/`),
    saveVariant: (w: string, slug: string, channel: string, id: string, body: unknown) =>
      request<Variant>('POST', `${ws2(w)}/template/${seg(slug)}/channel/${seg(channel)}/variant/${seg(id)}/`, { body }),
    preview: (w: string, slug: string, body: unknown) =>
      request<Preview>('POST', `/v1/${seg(w)}/template/${seg(slug)}/preview/`, { body }),
  },

  vendors: {
    list: (w: string) => request<{ results: Vendor[] }>('GET', `${ws(w)}/vendor/`),
    create: (w: string, body: unknown) => request<Vendor>('POST', `${ws(w)}/vendor/`, { body }),
    update: (w: string, id: string, body: unknown) => request<Vendor>('PATCH', `${ws(w)}/vendor/${seg(id)}/`, { body }),
    remove: (w: string, id: string) => request<null>('DELETE', `${ws(w)}/vendor/${seg(id)}/`),
    test: (w: string, id: string, body: unknown) =>
      request<VendorTestResult>('POST', `${ws(w)}/vendor/${seg(id)}/test/`, { body }),
  },

  keys: {
    apiKeys: (w: string) => request<OffsetList<ApiKey>>('GET', `${ws(w)}/ws_api_key/`, { query: { limit: 100 } }),
    createApiKey: (w: string, name: string) =>
      request<CreatedApiKey>('POST', `${ws(w)}/ws_api_key/`, { body: { name } }),
    revokeApiKey: (w: string, id: string) => request<null>('DELETE', `${ws(w)}/ws_api_key/${seg(id)}/`),
    workspaceKeys: (w: string) =>
      request<OffsetList<WorkspaceKey>>('GET', `${ws(w)}/ws_key/`, { query: { limit: 100 } }),
    createWorkspaceKey: (w: string, name: string) =>
      request<WorkspaceKey>('POST', `${ws(w)}/ws_key/`, { body: { name } }),
    rotateWorkspaceKey: (w: string, id: string) => request<WorkspaceKey>('POST', `${ws(w)}/ws_key/${seg(id)}/rotate/`),
    setWorkspaceKeyActive: (w: string, id: string, isActive: boolean) =>
      request<WorkspaceKey>('PATCH', `${ws(w)}/ws_key/${seg(id)}/`, { body: { is_active: isActive } }),
    deleteWorkspaceKey: (w: string, id: string) => request<null>('DELETE', `${ws(w)}/ws_key/${seg(id)}/`),
  },

  preferences: {
    get: (w: string, mode: 'draft' | 'live') =>
      request<Record<string, unknown>>('GET', `${ws(w)}/preference_category/`, { query: { mode } }),
    save: (w: string, body: unknown) =>
      request<Record<string, unknown>>('POST', `${ws(w)}/preference_category/`, { body }),
    commit: (w: string, message: string) =>
      request<Record<string, unknown>>('PATCH', `${ws(w)}/preference_category/commit/`, {
        query: { commit_message: message },
      }),
  },

  // The management twins of the base surface (docs/spec/product.md §1, §2): same shapes as /v1/message/ etc.
  messages: {
    list: (w: string, query: Query) => request<CursorList<Message>>('GET', `${ws(w)}/message/`, { query }),
    get: (w: string, id: string) => request<Message>('GET', `${ws(w)}/message/${seg(id)}/`),
  },
  runs: {
    list: (w: string, query: Query) => request<CursorList<Execution>>('GET', `${ws(w)}/workflow_run/`, { query }),
    get: (w: string, id: string) => request<Execution>('GET', `${ws(w)}/workflow_run/${seg(id)}/`),
  },
  users: {
    list: (w: string, query: Query) => request<CursorList<Record<string, unknown>>>('GET', `${ws(w)}/user/`, { query }),
    get: (w: string, id: string) => request<Record<string, unknown>>('GET', `${ws(w)}/user/${seg(id)}/`),
    /** Every category on every channel, with the rule that decided (docs/management-twins.md). */
    preferences: (w: string, id: string) =>
      request<PreferenceEvaluations>('GET', `${ws(w)}/user/${seg(id)}/preference/evaluation/`),
    lists: (w: string, id: string) =>
      request<CursorList<SubscribedToList>>('GET', `${ws(w)}/user/${seg(id)}/subscribed_to/list/`, {
        query: { limit: 100 },
      }),
    objects: (w: string, id: string) =>
      request<CursorList<Record<string, unknown>>>('GET', `${ws(w)}/user/${seg(id)}/subscribed_to/object/`, {
        query: { limit: 100 },
      }),
  },
  queues: (w: string) => request<QueueOverview>('GET', `${ws(w)}/queue/`),
};
