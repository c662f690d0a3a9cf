import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';

type Document = { paths?: Record<string, unknown>; [key: string]: unknown };
type ObjectSchema = { properties?: Record<string, { default?: unknown }>; required?: string[]; [key: string]: unknown };

/**
 * A querystring or header schema as its documentation should read it: a property with a default
 * is not required of the caller (Ajv fills it in before `required` is checked, so the TypeBox
 * schemas list it there), so it leaves `required`. A copy: the route validates with the original.
 */
export function optionalWhereDefaulted<T>(schema: T): T {
  if (!schema || typeof schema !== 'object') return schema;
  const object = schema as ObjectSchema;
  const copy: ObjectSchema = { ...object };
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(object[key])) copy[key] = (object[key] as unknown[]).map(optionalWhereDefaulted);
  }
  if (Array.isArray(object.required) && object.properties) {
    const properties = object.properties;
    copy.required = object.required.filter((name) => properties[name]?.default === undefined);
  }
  return copy as T;
}

/** The hosted platform's OpenAPI version whose API Herald answers (docs/spec/compat.md): named in the descriptions. */
export const COMPATIBLE_API_VERSION = '1.2.2';

/** Herald's own version, from its package.json (two levels up from src/http, three from dist/src/http). */
export const HERALD_VERSION = ((): string => {
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'herald' && pkg.version) return pkg.version;
    } catch {
      // not there: try the next level up
    }
  }
  return 'unknown';
})();

/** The reference page's top bar: Herald's name and version rather than the generator's logo. */
const LOGO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="220" height="40" viewBox="0 0 220 40">' +
    '<text x="0" y="29" font-family="sans-serif" font-size="26" font-weight="bold" fill="#ffffff">Herald</text>' +
    `<text x="100" y="29" font-family="sans-serif" font-size="16" fill="#d0d0d0">${HERALD_VERSION}</text></svg>`,
);

const securitySchemes = {
  base: {
    BearerApiKey: {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key from the management surface: `Authorization: Bearer <API_KEY>`',
    },
    SignedWorkspaceKey: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description:
        '`Authorization: <workspace_key>:<signature>`, signature = base64(HMAC-SHA256(workspace_secret, METHOD\\nmd5(body)\\nContent-Type\\nDate\\npath?query)), as the official backend SDKs send it',
    },
  },
  // Not alternatives for the base surface: only the feed's operations name them (together).
  inbox: {
    InboxPublicKey: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: "The in-app feed only: the workspace's public key (`SS.PUBK.…`), with InboxUserToken",
    },
    InboxWorkspaceKey: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description:
        'The older inbox clients only: `<workspace_key>:<anything>`, with `subscriber_id` = base64url(HMAC-SHA256(inbox secret, distinct_id)) in the query or body (docs/clients.md)',
    },
    InboxUserToken: {
      type: 'apiKey',
      in: 'header',
      name: 'x-ss-signature',
      description: 'The in-app feed only: an ES256 user token signed with the workspace signing key (docs/channels.md)',
    },
  },
  management: {
    ServiceToken: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: '`Authorization: ServiceToken <TOKEN>`',
    },
  },
};

/** Registers the generator; must run before any route so that every route is documented. */
export async function registerOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Herald', version: HERALD_VERSION },
      // Operations that name a scheme need it declared here; the surfaces' documents set their own.
      components: { securitySchemes: { ...securitySchemes.inbox, ...securitySchemes.management } as never },
    },
    transform: ({ schema, url }) => ({
      url,
      schema: schema && {
        ...schema,
        ...(schema.querystring ? { querystring: optionalWhereDefaulted(schema.querystring) } : {}),
        ...(schema.headers ? { headers: optionalWhereDefaulted(schema.headers) } : {}),
      },
    }),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string) ?? `def-${i}` },
  });
}

/** Splits the one generated document into the two surfaces' documents, each rooted at its own URL. */
export function surfaceDocuments(full: Document, managementPrefix: string) {
  const paths = full.paths ?? {};
  const pick = (management: boolean) =>
    Object.fromEntries(
      Object.entries(paths)
        .filter(([path]) => path.startsWith(`${managementPrefix}/`) === management)
        .map(([path, item]) => [management ? path.slice(managementPrefix.length) : path, item]),
    );
  const components = (full as { components?: Record<string, unknown> }).components ?? {};
  const document = (
    title: string,
    version: string,
    server: string,
    schemes: Record<string, unknown>,
    management: boolean,
  ) => ({
    ...full,
    info: {
      title,
      version,
      description:
        `${title} of Herald ${version}, the self-hostable notification platform; ` +
        `compatible with the hosted platform's API ${COMPATIBLE_API_VERSION} (SuprSend).`,
    },
    servers: [{ url: server }],
    components: {
      ...components,
      securitySchemes: {
        ...schemes,
        // The base document's feed operations name the inbox schemes; the CLI's bridge call names ServiceToken.
        ...(management ? {} : { ...securitySchemes.inbox, ...securitySchemes.management }),
      },
    },
    security: Object.keys(schemes).map((name) => ({ [name]: [] })),
    paths: pick(management),
  });
  return {
    base: document('Herald base API', HERALD_VERSION, '/', securitySchemes.base, false),
    management: document('Herald management API', HERALD_VERSION, managementPrefix, securitySchemes.management, true),
  };
}

/** `/openapi.json`, `<prefix>/openapi.json`, and the reference page at `/docs` (`GET /` sends a person to the console: http/console.ts). */
export async function registerApiReference(app: FastifyInstance, managementPrefix: string) {
  let documents: ReturnType<typeof surfaceDocuments> | undefined;
  const documentsOf = () => (documents ??= surfaceDocuments(app.swagger() as Document, managementPrefix));
  const schema = { hide: true, response: { 200: Type.Object({}, { additionalProperties: true }) } };
  app.get('/openapi.json', { schema }, async () => documentsOf().base);
  app.get(`${managementPrefix}/openapi.json`, { schema }, async () => documentsOf().management);
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    logo: { type: 'image/svg+xml', content: LOGO, href: '/docs/', target: '_self' },
    theme: { title: `Herald ${HERALD_VERSION} API reference` },
    uiConfig: {
      urls: [
        { url: '/openapi.json', name: 'base' },
        { url: `${managementPrefix}/openapi.json`, name: 'management' },
      ],
    },
  });
}
