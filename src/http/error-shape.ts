import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ErrorShape } from '../errors.js';
import { fullErrors, shortErrors } from '../schemas/common.js';

/**
 * Registers `routes` with one error shape (docs/spec/interface.md §6: full or short), set here once for the
 * whole subtree: every route in it answers errors in that shape and documents every 4xx/5xx
 * response with that shape's schema, whatever its own schema listed.
 */
export function withErrorShape(shape: ErrorShape, routes: FastifyPluginAsyncTypebox): FastifyPluginAsyncTypebox {
  const errors = shape === 'short' ? shortErrors : fullErrors;
  return async (app) => {
    app.addHook('onRoute', (route) => {
      route.config = { ...route.config, errorShape: shape };
      const response = (route.schema as { response?: Record<string, unknown> } | undefined)?.response;
      if (!response) return;
      const statuses = Object.keys(response)
        .map(Number)
        .filter((status) => status >= 400);
      Object.assign(response, errors(...statuses));
    });
    await app.register(routes);
  };
}
