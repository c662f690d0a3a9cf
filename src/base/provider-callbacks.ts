import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { receiveTwilioStatus } from '../engine/provider-feedback.js';
import { parseFormBodies } from '../http/form-bodies.js';
import { withErrorShape } from '../http/error-shape.js';
import { errors, NoContent } from '../schemas/common.js';
import { VendorParamsSchema } from '../schemas/vendors.js';

/** A status callback's form is a few hundred bytes. */
const CALLBACK_BODY_LIMIT = 16 * 1024;

const TwilioStatusSchema = Type.Object(
  {
    MessageSid: Type.String({ minLength: 1, maxLength: 64, description: "the message's SID (SM… or MM…)" }),
    MessageStatus: Type.String({ minLength: 1, maxLength: 32, description: 'queued, sent, delivered, failed…' }),
    ErrorCode: Type.Optional(Type.String({ maxLength: 16 })),
  },
  { additionalProperties: Type.String(), description: 'the form Twilio posts; every field is signed' },
);

/**
 * Vendors' status callbacks (docs/channels.md, "Twilio status callbacks"): Twilio posts a message's progress to the
 * `StatusCallback` URL its send named. No key: the request is signed with the vendor's auth token
 * (`X-Twilio-Signature`) over the full URL Twilio called, which is PUBLIC_URL and the path when PUBLIC_URL is set
 * (what the send named), else the address the request came to.
 */
const callbackRoutes = (publicUrl: string | undefined): FastifyPluginAsyncTypebox =>
  async function providerCallbacks(app) {
    parseFormBodies(app, CALLBACK_BODY_LIMIT);
    const root = publicUrl?.replace(/\/+$/, '');
    app.post(
      '/provider_callback/twilio/:workspace/:vendor_id/',
      {
        schema: {
          tags: ['provider callbacks'],
          operationId: 'twilioStatusCallback',
          summary: "Twilio's status callback for an SMS or WhatsApp message Herald sent (signed by the vendor)",
          description:
            'Form-encoded, as Twilio posts it. 204 whether or not the status moved the message (only `delivered`, ' +
            '`read`, `failed` and `undelivered` do, and only from `sent_by_vendor`); 403 when `X-Twilio-Signature` ' +
            "is not the vendor's; 404 for an unknown workspace, vendor or message.",
          security: [],
          consumes: ['application/x-www-form-urlencoded'],
          params: VendorParamsSchema,
          headers: Type.Object({ 'x-twilio-signature': Type.Optional(Type.String({ maxLength: 256 })) }),
          body: TwilioStatusSchema,
          response: { 204: NoContent, ...errors(403, 404) },
        },
      },
      async (request, reply) => {
        await receiveTwilioStatus(
          { db: app.db, secretBox: app.secretBox },
          {
            workspace: request.params.workspace,
            vendorId: request.params.vendor_id,
            url: `${root ?? `${request.protocol}://${request.host}`}${request.url}`,
            params: request.body as Record<string, string>,
            signature: request.headers['x-twilio-signature'],
          },
        );
        return reply.code(204).send(null);
      },
    );
  };

export const providerCallbackRoutes = (publicUrl: string | undefined) =>
  withErrorShape('full', callbackRoutes(publicUrl));
