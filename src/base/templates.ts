import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../errors.js';
import { presentBaseChannel, presentBaseTemplate } from '../presenters/base-templates.js';
import { findLiveTemplateVersions } from '../services/templates.js';
import { errors, offsetList, ref } from '../schemas/common.js';
import {
  BaseTemplateChannelParamsSchema,
  BaseTemplateChannelSchema,
  BaseTemplateListQuerySchema,
  BaseTemplateParamsSchema,
  BaseTemplateSchema,
} from '../schemas/templates.js';
import { requireTemplate } from '../services/templates.js';
import { listTemplates } from '../repositories/templates.js';

const commaList = (value: string | undefined) =>
  value
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** Templates read by the application (API key): metadata and the live version's content. */
export const baseTemplateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['templates'];

  app.get(
    '/v1/template/',
    {
      schema: {
        tags,
        operationId: 'listTemplatesBase',
        summary: 'List templates with their channels (no content: fetch one template or channel for that)',
        querystring: BaseTemplateListQuerySchema,
        response: { 200: offsetList(ref(BaseTemplateSchema)), ...errors(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset, is_active, is_archived } = request.query;
      if (is_archived) return { meta: { count: 0, limit, offset }, results: [] };
      const { rows, count } = await listTemplates(app.db, request.workspace.id, {
        mode: 'draft',
        limit,
        offset,
        isActive: is_active,
        channelsAny: commaList(request.query.has_channels_any),
        tagsAny: commaList(request.query.has_tag_ids_any),
      });
      const live = await findLiveTemplateVersions(app.db, rows);
      return {
        meta: { count, limit, offset },
        results: rows.map((row) =>
          presentBaseTemplate(
            row,
            live.find((version) => version.template_id === row.id),
          ),
        ),
      };
    },
  );

  app.get(
    '/v1/template/:template_slug/',
    {
      schema: {
        tags,
        operationId: 'getTemplateBase',
        summary: 'Fetch a template and its channels',
        params: BaseTemplateParamsSchema,
        response: { 200: ref(BaseTemplateSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const template = await requireTemplate(app.db, request.workspace.id, request.params.template_slug);
      const [live] = await findLiveTemplateVersions(app.db, [template]);
      return presentBaseTemplate(template, live);
    },
  );

  app.get(
    '/v1/template/:template_slug/channel/:channel_slug/',
    {
      schema: {
        tags,
        operationId: 'getTemplateChannelBase',
        summary: "Fetch one channel of a template with the live version's content per variant",
        params: BaseTemplateChannelParamsSchema,
        response: { 200: ref(BaseTemplateChannelSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { template_slug, channel_slug } = request.params;
      const template = await requireTemplate(app.db, request.workspace.id, template_slug);
      const [live] = await findLiveTemplateVersions(app.db, [template]);
      const enabled = new Set([...template.enabled_channels, ...(live?.enabled_channels ?? [])]);
      if (!enabled.has(channel_slug))
        throw notFound(`template (slug: '${template_slug}') has no channel '${channel_slug}'`);
      return presentBaseChannel(template, channel_slug, live, true);
    },
  );
};
