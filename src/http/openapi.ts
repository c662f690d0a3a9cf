import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';

type Document = { paths?: Record<string, unknown>; [key: string]: unknown };

export const MANAGEMENT_API_VERSION = '1.2.2';

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
      info: { title: 'Herald', version: MANAGEMENT_API_VERSION },
      // Operations that name a scheme need it declared here; the surfaces' documents set their own.
      components: { securitySchemes: securitySchemes.inbox as never },
    },
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
    info: { title, version, description: `${title} of Herald, the self-hostable notification platform.` },
    servers: [{ url: server }],
    components: { ...components, securitySchemes: { ...schemes, ...(management ? {} : securitySchemes.inbox) } },
    security: Object.keys(schemes).map((name) => ({ [name]: [] })),
    paths: pick(management),
  });
  return {
    base: document('Herald base API', MANAGEMENT_API_VERSION, '/', securitySchemes.base, false),
    management: document(
      'Herald management API',
      MANAGEMENT_API_VERSION,
      managementPrefix,
      securitySchemes.management,
      true,
    ),
  };
}

/** `/openapi.json`, `<prefix>/openapi.json` and the reference page at `/docs`. */
export async function registerApiReference(app: FastifyInstance, managementPrefix: string) {
  let documents: ReturnType<typeof surfaceDocuments> | undefined;
  const documentsOf = () => (documents ??= surfaceDocuments(app.swagger() as Document, managementPrefix));
  const schema = { hide: true, response: { 200: Type.Object({}, { additionalProperties: true }) } };
  app.get('/openapi.json', { schema }, async () => documentsOf().base);
  app.get(`${managementPrefix}/openapi.json`, { schema }, async () => documentsOf().management);
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      urls: [
        { url: '/openapi.json', name: 'base' },
        { url: `${managementPrefix}/openapi.json`, name: 'management' },
      ],
    },
  });
}
