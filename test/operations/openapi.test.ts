import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';

const packageVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

type Operation = {
  operationId?: string;
  parameters?: { in: string; name: string; required?: boolean; schema?: { default?: unknown } }[];
  requestBody?: unknown;
  security?: unknown[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};

describe('OpenAPI', () => {
  const t = useTestApp();
  const fetchDocument = async (url: string) => {
    const response = await t().app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    return response.json() as {
      openapi: string;
      info: { version: string };
      components: { securitySchemes: Record<string, unknown> };
      paths: Record<string, Record<string, Operation>>;
    };
  };

  it('serves a 3.1 document per surface with its security schemes', async () => {
    const base = await fetchDocument('/openapi.json');
    const management = await fetchDocument('/management/openapi.json');
    expect(base.openapi).toBe('3.1.0');
    // Herald's own version (issue 32, point 14: it read the anchor's 1.2.2); the anchor's is named in the description.
    expect(management.info.version).toBe(packageVersion);
    expect(base.info.version).toBe(packageVersion);
    expect((base.info as { description?: string }).description).toContain('1.2.2');
    expect(Object.keys(base.components.securitySchemes)).toEqual([
      'BearerApiKey',
      'SignedWorkspaceKey',
      'InboxPublicKey',
      'InboxWorkspaceKey',
      'InboxUserToken',
      'ServiceToken',
    ]);
    // The hosted platform CLI's bridge call sits on the base paths but takes a service token.
    expect(base.paths['/v1/{workspace}/ws_key/bridge/']?.get?.security).toEqual([{ ServiceToken: [] }]);
    // The base surface's calls take either API credential; the in-app feed's take the public key and a user token together.
    expect((base as unknown as { security: unknown }).security).toEqual([
      { BearerApiKey: [] },
      { SignedWorkspaceKey: [] },
    ]);
    expect(base.paths['/v1/feed/notifications/']?.get?.security).toEqual([{ InboxPublicKey: [], InboxUserToken: [] }]);
    expect(Object.keys(management.components.securitySchemes)).toEqual(['ServiceToken']);
    // Templates are on /v2/ as on the anchor; everything else is /v1/.
    expect(Object.keys(management.paths).every((path) => /^\/v[12]\//.test(path))).toBe(true);
    expect(Object.keys(base.paths)).toContain('/v1/user/{distinct_id}/');
  });

  it('documents every route with its inputs and a response schema for every status', async () => {
    const problems: string[] = [];
    for (const url of ['/openapi.json', '/management/openapi.json']) {
      const document = await fetchDocument(url);
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          const where = `${method.toUpperCase()} ${url === '/openapi.json' ? '' : '/management'}${path}`;
          if (!operation.operationId) problems.push(`${where}: no operationId`);
          const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
          for (const name of pathParams) {
            if (!operation.parameters?.some((p) => p.in === 'path' && p.name === name))
              problems.push(`${where}: path parameter ${name} undocumented`);
          }
          if (
            ['post', 'patch', 'put'].includes(method) &&
            !operation.requestBody &&
            !path.endsWith('/rotate/') &&
            !path.includes('/commit/')
          ) {
            problems.push(`${where}: no request body schema`);
          }
          const responses = Object.entries(operation.responses ?? {});
          if (!responses.some(([status]) => status.startsWith('2'))) problems.push(`${where}: no success response`);
          const authenticated = !(Array.isArray(operation.security) && operation.security.length === 0);
          if (authenticated && !responses.some(([status]) => status === '401'))
            problems.push(`${where}: no 401 response`);
          for (const [status, response] of responses) {
            // A text body (GET /metrics, the preference pages) has its schema under its text media type.
            const content =
              response.content?.['application/json'] ??
              response.content?.['text/plain'] ??
              response.content?.['text/html'];
            if (status !== '204' && !content?.schema) problems.push(`${where}: ${status} has no schema`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('requires no query or header parameter that has a default or is optional (issue 32, point 7)', async () => {
    const wronglyRequired: string[] = [];
    const required: string[] = [];
    let optional = 0;
    for (const url of ['/openapi.json', '/management/openapi.json']) {
      const document = await fetchDocument(url);
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          for (const parameter of operation.parameters ?? []) {
            if (parameter.in === 'path') continue;
            const where = `${method.toUpperCase()} ${url === '/openapi.json' ? '' : '/management'}${path} ${parameter.name}`;
            if (!parameter.required) optional += 1;
            else if (parameter.schema?.default !== undefined) wronglyRequired.push(where);
            else required.push(where);
          }
        }
      }
    }
    expect(wronglyRequired).toEqual([]);
    // What remains required has neither a default nor an Optional in its TypeBox schema: the route refuses a call without it.
    expect(required).toEqual(REQUIRED_QUERY_PARAMETERS);
    expect(optional).toBeGreaterThanOrEqual(75);
  });

  it('sends GET / to the console, and serves the API reference (issue 32, point 14)', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const response = await t().app.inject({ method, url: '/' });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('/console/');
    }
    const page = await t().app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
  });

  it("renders the API reference page under Herald's name and version, not the generator's logo", async () => {
    const response = await t().app.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.body).toContain(`<title>Herald ${packageVersion} API reference</title>`);
    const initializer = await t().app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(initializer.statusCode).toBe(200);
    const logo = /img\.src = 'data:image\/svg\+xml;base64,([^']+)'/.exec(initializer.body)?.[1];
    expect(logo).toBeDefined();
    const svg = Buffer.from(logo!, 'base64').toString('utf8');
    expect(svg).toContain('>Herald<');
    expect(svg).toContain(`>${packageVersion}<`);
    expect(svg).not.toMatch(/fastify/i);
  });
});

/** Query parameters a route cannot answer without (no default, not Optional in its TypeBox schema). */
const REQUIRED_QUERY_PARAMETERS = [
  'GET /v1/user/{distinct_id}/preference/evaluate/ category',
  'GET /v1/user/{distinct_id}/preference/evaluate/ channel',
  // The older inbox clients send both on every call: the subscriber id the inbox secret signs (docs/clients.md).
  'GET /notifications/ distinct_id',
  'GET /notifications/ subscriber_id',
  'GET /notification_count/ distinct_id',
  'GET /notification_count/ subscriber_id',
  'GET /notification/{n_id}/ distinct_id',
  'GET /notification/{n_id}/ subscriber_id',
  // Its management twin (docs/management-twins.md).
  'GET /management/v1/{workspace}/user/{distinct_id}/preference/evaluate/ category',
  'GET /management/v1/{workspace}/user/{distinct_id}/preference/evaluate/ channel',
];
