import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/request-auth.js';
import { badRequest } from '../errors.js';
import { presentTemplate } from '../presenters/templates.js';
import { findLiveTemplateVersions } from '../services/templates.js';
import { errors, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  CommitBodySchema,
  MockDataBodySchema,
  MockDataSchema,
  PreCommitCheckSchema,
  TEMPLATE_SLUG_PATTERN,
  TemplateBodySchema,
  TemplateListQuerySchema,
  TemplateModeQuerySchema,
  TemplateParamsSchema,
  TemplateSchema,
} from '../schemas/templates.js';
import { CommitMessageQuerySchema } from '../schemas/versioning.js';
import {
  commitTemplate,
  draftView,
  liveView,
  preCommitCheck,
  requireTemplate,
  templateView,
} from '../services/templates.js';
import { EmptyBodySchema } from '../schemas/empty-body.js';
import { presentMockData } from '../presenters/template-mock-data.js';
import {
  findDraftVariants,
  listTemplates,
  setTemplateMockData,
  upsertTemplateDraft,
} from '../repositories/templates.js';

const slugRegExp = new RegExp(TEMPLATE_SLUG_PATTERN);

/** Templates: metadata and per-channel variants authored as a draft, committed into numbered versions. */
export const templateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['templates'];

  app.get(
    '/v2/:workspace/template/',
    {
      schema: {
        tags,
        operationId: 'listTemplates',
        summary: 'List templates, draft (default) or live',
        params: WorkspaceParamsSchema,
        querystring: TemplateListQuerySchema,
        response: { 200: offsetList(ref(TemplateSchema)), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = request.workspace.id;
      const { mode, q, limit, offset } = request.query;
      const { rows, count } = await listTemplates(app.db, workspaceId, { mode, q, limit, offset });
      const ids = rows.map((row) => row.id);
      const [draft, live] = await Promise.all([
        mode === 'draft' ? findDraftVariants(app.db, ids) : Promise.resolve([]),
        findLiveTemplateVersions(app.db, rows),
      ]);
      const results = rows.map((template) => {
        const version = live.find((v) => v.template_id === template.id);
        const view =
          mode === 'live' && version
            ? liveView(template, version)
            : draftView(
                template,
                draft.filter((variant) => variant.template_id === template.id),
                version,
              );
        return presentTemplate(view);
      });
      return { meta: { count, limit, offset }, results };
    },
  );

  app.get(
    '/v2/:workspace/template/:template_slug/',
    {
      schema: {
        tags,
        operationId: 'getTemplate',
        summary: 'Fetch a template, draft (default) or live',
        params: TemplateParamsSchema,
        querystring: TemplateModeQuerySchema,
        response: { 200: ref(TemplateSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const template = await requireTemplate(app.db, request.workspace.id, request.params.template_slug);
      return presentTemplate(await templateView(app.db, template, request.query.mode));
    },
  );

  app.post(
    '/v2/:workspace/template/:template_slug/',
    {
      schema: {
        tags,
        operationId: 'upsertTemplate',
        summary: 'Create a template or update its draft metadata (name, description, tags, enabled_channels)',
        params: TemplateParamsSchema,
        body: TemplateBodySchema,
        response: { 200: ref(TemplateSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = request.workspace.id;
      const slug = request.params.template_slug;
      if (!slugRegExp.test(slug))
        throw badRequest(`template slug '${slug}' is invalid: use lowercase letters, digits, - and _`, {
          slug: 'is invalid',
        });
      const { body } = request;
      const view = await app.db.transaction().execute(async (trx) => {
        const template = await upsertTemplateDraft(trx, workspaceId, {
          slug,
          metadata: {
            name: body.name,
            description: body.description,
            tags: body.tags ?? undefined,
            enabled_channels: body.enabled_channels ?? undefined,
          },
          actor: actorOf(request),
        });
        return templateView(trx, template, 'draft');
      });
      return presentTemplate(view);
    },
  );

  app.patch(
    '/v2/:workspace/template/:template_slug/commit/',
    {
      schema: {
        tags,
        operationId: 'commitTemplate',
        summary: 'Commit the draft: metadata and every variant of the enabled channels become the next live version',
        params: TemplateParamsSchema,
        querystring: CommitMessageQuerySchema,
        body: CommitBodySchema,
        response: { 200: ref(TemplateSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = request.workspace.id;
      const fromBody = request.body?.commit_message;
      const commitMessage = request.query.commit_message ?? (typeof fromBody === 'string' ? fromBody : null);
      const view = await app.db
        .transaction()
        .execute((trx) =>
          commitTemplate(trx, workspaceId, request.params.template_slug, { commitMessage, actor: actorOf(request) }),
        );
      return presentTemplate(view);
    },
  );

  app.post(
    '/v2/:workspace/template/:template_slug/pre_commit_validate/',
    {
      schema: {
        tags,
        operationId: 'preCommitValidateTemplate',
        summary:
          'What committing the draft would do, per variant, without committing (the CLI calls it before commit --force)',
        params: TemplateParamsSchema,
        body: EmptyBodySchema,
        response: { 200: ref(PreCommitCheckSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => preCommitCheck(app.db, request.workspace.id, request.params.template_slug),
  );

  app.get(
    '/v2/:workspace/template/:template_slug/mock_data/',
    {
      schema: {
        tags,
        operationId: 'getTemplateMockData',
        summary: 'The mock data used to preview the template, raw and as a template sees it',
        params: TemplateParamsSchema,
        querystring: TemplateModeQuerySchema,
        response: { 200: ref(MockDataSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const template = await requireTemplate(app.db, request.workspace.id, request.params.template_slug);
      if (request.query.mode === 'draft') return presentMockData(template.mock_data);
      const [live] = await findLiveTemplateVersions(app.db, [template]);
      return presentMockData(live ? live.mock_data : null);
    },
  );

  app.patch(
    '/v2/:workspace/template/:template_slug/mock_data/',
    {
      schema: {
        tags,
        operationId: 'updateTemplateMockData',
        summary: 'Replace the draft mock data',
        params: TemplateParamsSchema,
        body: MockDataBodySchema,
        response: { 200: ref(MockDataSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = request.workspace.id;
      const template = await app.db.transaction().execute(async (trx) => {
        const found = await requireTemplate(trx, workspaceId, request.params.template_slug, { lock: true });
        return setTemplateMockData(trx, found.id, request.body);
      });
      return presentMockData(template.mock_data);
    },
  );
};
