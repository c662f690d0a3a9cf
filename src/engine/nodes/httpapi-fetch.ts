import { httpapiWebhook } from './httpapi-webhook.js';
import type { NodeHandlerOf } from './types.js';

/**
 * `httpapi_fetch`: the webhook node's call restricted to GET (HttpApiFetchNode has no body): `url`,
 * `headers`, `query_params` and `output_key` as there, the answer kept for the steps after it.
 */
export const httpapiFetch: NodeHandlerOf<'httpapi_fetch'> = (context, config) =>
  httpapiWebhook(context, { ...config, http_method: 'GET' });
