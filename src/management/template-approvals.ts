import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/request-auth.js';
import { presentVariant } from '../presenters/templates.js';
import { errors, ref } from '../schemas/common.js';
import {
  ApprovalVariantParamsSchema,
  DiscardVariantBodySchema,
  LiveModeQuerySchema,
  TemplateVariantSchema,
  VendorApprovalBodySchema,
} from '../schemas/templates.js';
import { discardVariant, recordVendorApproval } from '../services/template-approvals.js';

/**
 * Vendor approval of live SMS and WhatsApp variants that need it (after the OpenAPI's `discard-variant-v2` and
 * `vendor-approval-v2`; docs/channels.md, "Vendor approval"). Both answer the live variant as it now reads.
 */
export const templateApprovalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['templates'];
  const refOf = (params: { template_slug: string; channel: string; variant_id: string }, workspaceId: number) => ({
    workspaceId,
    slug: params.template_slug,
    channel: params.channel,
    variantId: params.variant_id,
  });

  app.patch(
    '/v2/:workspace/template/:template_slug/channel/:channel/variant/:variant_id/discard/',
    {
      schema: {
        tags,
        operationId: 'discardTemplateVariant',
        summary:
          'Discard a live variant awaiting vendor approval: it is never sent, and the next commit submits it again',
        params: ApprovalVariantParamsSchema,
        querystring: LiveModeQuerySchema,
        body: DiscardVariantBodySchema,
        response: { 200: ref(TemplateVariantSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const variant = await app.db.transaction().execute((trx) =>
        discardVariant(trx, refOf(request.params, request.workspace.id), {
          comment: request.body.comment,
          actor: actorOf(request),
        }),
      );
      return presentVariant(variant, { detail: true, mode: 'live' });
    },
  );

  app.patch(
    '/v2/:workspace/template/:template_slug/channel/:channel/variant/:variant_id/vendor_approval/',
    {
      schema: {
        tags,
        operationId: 'recordTemplateVendorApproval',
        summary:
          "Add or update one vendor's approval of a live variant (approved needs vendor_template_name and " +
          'vendor_template_id, rejected a comment); the variant is sent once a vendor approved it',
        params: ApprovalVariantParamsSchema,
        querystring: LiveModeQuerySchema,
        body: VendorApprovalBodySchema,
        response: { 200: ref(TemplateVariantSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const variant = await app.db.transaction().execute((trx) =>
        recordVendorApproval(trx, refOf(request.params, request.workspace.id), {
          entry: request.body,
          actor: actorOf(request),
        }),
      );
      return presentVariant(variant, { detail: true, mode: 'live' });
    },
  );
};
