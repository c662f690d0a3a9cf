import { httpapiWebhook } from './httpapi-webhook.js';
import type { NodeHandler } from './types.js';

/**
 * `httpapi_fetch`: the webhook node's call restricted to GET (HttpApiFetchNode has no body): `url`,
 * `headers`, `query_params` and `output_key` as there, the answer kept for the steps after it.
 */
export const httpapiFetch: NodeHandler = (context) => {
  const { body: _body, properties, ...node } = context.node;
  const inner =
    properties && typeof properties === 'object' ? { ...(properties as object), body: undefined } : properties;
  return httpapiWebhook({ ...context, node: { ...node, properties: inner, http_method: 'GET' } });
};
