import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/request-auth.js';
import { badRequest, notFound } from '../errors.js';
import type { VariantRecord } from '../domain/template-views.js';
import { presentVariant } from '../presenters/templates.js';
import { findLiveTemplateVersions } from '../services/templates.js';
import { errors, offsetList, ref } from '../schemas/common.js';
import {
  TemplateChannelParamsSchema,
  TemplateModeQuerySchema,
  TemplateParamsSchema,
  TemplateVariantSchema,
  VariantBodySchema,
  VariantListQuerySchema,
  VariantOrderBodySchema,
  VariantOrderSchema,
  VariantOrderWriteQuerySchema,
  VariantParamsSchema,
} from '../schemas/templates.js';
import { readVariantOrder, reorderDraftVariants, requireTemplate } from '../services/templates.js';
import { findDraftVariants, touchTemplate, upsertVariant } from '../repositories/templates.js';

/** Variants: one template's content per channel, locale and tenant (draft by default, `?mode=live` for the live one). */
export const templateVariantRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['templates'];

  async function variantsOf(workspaceId: number, slug: string, mode: 'draft' | 'live') {
    const template = await requireTemplate(app.db, workspaceId, slug);
    const [live] = await findLiveTemplateVersions(app.db, [template]);
    const liveVariants: VariantRecord[] = live?.variants ?? [];
    if (mode === 'live' && !live)
      throw notFound(`template (slug: '${slug}') has no live version: it was never committed`);
    const variants: VariantRecord[] = mode === 'live' ? liveVariants : await findDraftVariants(app.db, [template.id]);
    return { variants, liveVariants, withdrawn: live?.withdrawn ?? [] };
  }

  const list = (
    variants: VariantRecord[],
    found: { liveVariants: VariantRecord[]; withdrawn: VariantRecord[] },
    mode: 'draft' | 'live',
    page: { limit?: number; offset?: number; detail?: boolean } = {},
  ) => {
    const offset = page.offset ?? 0;
    const limit = page.limit ?? variants.length;
    return {
      meta: { count: variants.length, limit, offset },
      results: variants.slice(offset, offset + limit).map((variant) =>
        presentVariant(variant, {
          detail: page.detail ?? false,
          live: found.liveVariants,
          withdrawn: found.withdrawn,
          mode,
        }),
      ),
    };
  };

  app.get(
    '/v2/:workspace/template/:template_slug/variant/',
    {
      schema: {
        tags,
        operationId: 'listTemplateVariants',
        summary: "List every channel's variants of a template",
        params: TemplateParamsSchema,
        querystring: VariantListQuerySchema,
        response: { 200: offsetList(ref(TemplateVariantSchema)), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { mode, include_content, limit, offset } = request.query;
      const found = await variantsOf(request.workspace.id, request.params.template_slug, mode);
      return list(found.variants, found, mode, { limit, offset, detail: include_content });
    },
  );

  app.get(
    '/v2/:workspace/template/:template_slug/variant/order/',
    {
      schema: {
        tags,
        operationId: 'getTemplateVariantOrder',
        summary: "The order of a template's variants per channel and tenant, draft (default) or live",
        params: TemplateParamsSchema,
        querystring: TemplateModeQuerySchema,
        response: { 200: ref(VariantOrderSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => readVariantOrder(app.db, request.workspace.id, request.params.template_slug, request.query.mode),
  );

  app.post(
    '/v2/:workspace/template/:template_slug/variant/order/',
    {
      schema: {
        tags,
        operationId: 'setTemplateVariantOrder',
        summary: "Reorder the draft's variants per channel and tenant (ties in variant choice go to the first)",
        params: TemplateParamsSchema,
        querystring: VariantOrderWriteQuerySchema,
        body: VariantOrderBodySchema,
        response: { 200: ref(VariantOrderSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) =>
      app.db
        .transaction()
        .execute((trx) =>
          reorderDraftVariants(trx, request.workspace.id, request.params.template_slug, request.body, actorOf(request)),
        ),
  );

  app.get(
    '/v2/:workspace/template/:template_slug/channel/:channel/variant/',
    {
      schema: {
        tags,
        operationId: 'listTemplateChannelVariants',
        summary: "List one channel's variants of a template",
        params: TemplateChannelParamsSchema,
        querystring: TemplateModeQuerySchema,
        response: { 200: offsetList(ref(TemplateVariantSchema)), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { mode } = request.query;
      const { channel, template_slug } = request.params;
      const found = await variantsOf(request.workspace.id, template_slug, mode);
      return list(
        found.variants.filter((variant) => variant.channel === channel),
        found,
        mode,
      );
    },
  );

  app.get(
    '/v2/:workspace/template/:template_slug/channel/:channel/variant/:variant_id/',
    {
      schema: {
        tags,
        operationId: 'getTemplateVariant',
        summary: 'Fetch one variant with its content and errors',
        params: VariantParamsSchema,
        querystring: TemplateModeQuerySchema,
        response: { 200: ref(TemplateVariantSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { mode } = request.query;
      const { channel, template_slug, variant_id } = request.params;
      const { variants, liveVariants, withdrawn } = await variantsOf(request.workspace.id, template_slug, mode);
      const variant = variants.find((v) => v.channel === channel && v.variant_id === variant_id);
      if (!variant) throw notFound(`variant '${channel}:${variant_id}' of template '${template_slug}' not found`);
      return presentVariant(variant, { detail: true, live: liveVariants, withdrawn, mode });
    },
  );

  app.post(
    '/v2/:workspace/template/:template_slug/channel/:channel/variant/:variant_id/',
    {
      schema: {
        tags,
        operationId: 'upsertTemplateVariant',
        summary: "Create or replace a variant in the template's draft (content is checked at commit)",
        params: VariantParamsSchema,
        body: VariantBodySchema,
        response: { 200: ref(TemplateVariantSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = request.workspace.id;
      const { channel, template_slug, variant_id } = request.params;
      const { body } = request;
      const { variant, live } = await app.db.transaction().execute(async (trx) => {
        const template = await requireTemplate(trx, workspaceId, template_slug, { lock: true });
        if (!template.enabled_channels.includes(channel))
          throw badRequest(`channel '${channel}' is not enabled on template '${template_slug}'`, {
            channel: `not in enabled_channels (${template.enabled_channels.join(', ') || 'none'})`,
          });
        const variant = await upsertVariant(
          trx,
          { templateId: template.id, channel, variantId: variant_id },
          {
            locale: body.locale,
            tenant_id: body.tenant_id ?? null,
            conditions: body.conditions ?? [],
            content: body.content,
            needs_vendor_approval: body.needs_vendor_approval,
            seq_no: body.seq_no,
          },
        );
        await touchTemplate(trx, template.id, actorOf(request));
        const [live] = await findLiveTemplateVersions(trx, [template]);
        return { variant, live };
      });
      return presentVariant(variant, {
        detail: true,
        live: live?.variants ?? [],
        withdrawn: live?.withdrawn ?? [],
        mode: 'draft',
      });
    },
  );
};
