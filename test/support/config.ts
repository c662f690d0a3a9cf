import type { TestApp } from './app.js';
import type { WorkspaceFixture } from './fixtures.js';
import { liveTemplatesOf } from './templates.js';

/** Small drivers for the configuration endpoints, so tests read as the behaviour they check. */

export const category = (slug: string, default_preference = 'opt_in') => ({
  category: slug,
  name: `Name of ${slug}`,
  default_preference,
});

/** A definition with the three roots; `transactional` and `promotional` hold the given slugs. */
export const definition = (transactional: string[] = [], promotional: string[] = []) => ({
  root_categories: [
    { root_category: 'system', sections: [] },
    {
      root_category: 'transactional',
      sections: transactional.length
        ? [{ name: 'Updates', categories: transactional.map((slug) => category(slug)) }]
        : [],
    },
    {
      root_category: 'promotional',
      sections: promotional.length
        ? [{ name: 'Marketing', categories: promotional.map((slug) => category(slug, 'opt_out')) }]
        : [],
    },
  ],
});

export function configClient(t: () => TestApp, ws: WorkspaceFixture) {
  const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown) =>
    t().app.inject({
      method,
      url: `/management/v1/${ws.slug}${path}`,
      headers: ws.management,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  return {
    inject,
    postCategories: (body: unknown, query = '') => inject('POST', `/preference_category/${query}`, body),
    getCategories: (query = '') => inject('GET', `/preference_category/${query}`),
    commitCategories: (query = '') => inject('PATCH', `/preference_category/commit/${query}`),
    /** Commits a definition in one call and returns its version_no. */
    async commitDefinition(body: unknown) {
      const response = await inject('POST', '/preference_category/?commit=true', body);
      if (response.statusCode !== 200 || response.json().status !== 'active')
        throw new Error(`commit failed: ${response.body}`);
      return response.json().version_no as number;
    },
    /** Saves the workflow, after committing the templates it names that do not exist yet (test/support/templates.ts). */
    async postWorkflow(slug: string, body: unknown, query = '') {
      await liveTemplatesOf(t, ws, (body as { tree?: unknown } | null)?.tree);
      return inject('POST', `/workflow/${slug}/${query}`, body);
    },
    getWorkflow: (slug: string, query = '') => inject('GET', `/workflow/${slug}/${query}`),
    commitWorkflow: (slug: string, query = '', body?: unknown) =>
      inject('PATCH', `/workflow/${slug}/commit/${query}`, body),
    /** An SMTP vendor on the email channel, logging in to a local server (test/support/smtp-sink.ts) without TLS. */
    async addSmtpVendor(port: number, login: { username: string; password: string }, extra: object = {}) {
      const response = await inject('POST', '/vendor/', {
        channel: 'email',
        provider: 'smtp',
        config: { host: '127.0.0.1', port, secure: false, ...login, from_email: 'news@example.com', ...extra },
      });
      if (response.statusCode !== 201) throw new Error(`vendor not created: ${response.body}`);
      return response.json() as { id: string };
    },
  };
}

export const workflowBody = (category: string, overrides: Record<string, unknown> = {}) => ({
  name: 'Welcome',
  category,
  trigger_type: 'api',
  tree: { nodes: [{ name: 'Send', node_type: 'send_email', properties: { template: 'welcome' } }] },
  ...overrides,
});
