import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance } from 'fastify';

const METHODS: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Fastify answers a known path with an unknown method as 404. A shadow router of every
 * registered route tells the not-found handler which methods the path does allow.
 */
export function trackAllowedMethods(app: FastifyInstance) {
  const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (METHODS.includes(method as HTTPMethod) && !router.hasRoute(method as HTTPMethod, route.url)) {
        router.on(method as HTTPMethod, route.url, () => {});
      }
    }
  });
  return (url: string): HTTPMethod[] => {
    const path = url.split('?')[0] ?? url;
    return METHODS.filter((method) => router.find(method, path) !== null);
  };
}
