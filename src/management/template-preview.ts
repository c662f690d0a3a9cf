import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { previewTemplate } from '../engine/preview.js';
import { errors, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import { TemplatePreviewBodySchema, TemplatePreviewSchema } from '../schemas/templates.js';

/** The template preview (docs/runs.md, docs/spec/product.md §3): what a delivery would carry, nothing stored. */
export const templatePreviewRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/:workspace/template/:slug/preview/',
    {
      schema: {
        tags: ['templates'],
        operationId: 'previewTemplate',
        summary: "Render one channel of a template's draft or live variants for mock data or a stored user",
        params: Type.Composite([
          WorkspaceParamsSchema,
          Type.Object({ slug: Type.String({ minLength: 1, maxLength: 255, description: "the template's slug" }) }),
        ]),
        body: TemplatePreviewBodySchema,
        response: { 200: ref(TemplatePreviewSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const body = request.body;
      return previewTemplate(app.db, request.workspace.id, request.params.slug, {
        channel: body.channel,
        mode: body.mode === 'live' ? 'live' : 'draft',
        locale: body.locale,
        tenantId: body.tenant_id,
        variantId: body.variant_id,
        data: body.data,
        distinctId: body.distinct_id,
      });
    },
  );
};
