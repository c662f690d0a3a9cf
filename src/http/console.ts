import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';

/** Where `GET /` sends a browser: the console (docs/spec/product.md §2). */
export const ROOT_REDIRECT = '/console/';

/**
 * The console's Content-Security-Policy (docs/console.md, "Security"). Scripts come from Herald only
 * (no inline script, no eval), the page talks to Herald only, and no other site may frame it.
 * Styles allow inline: a template preview (a sandboxed `srcdoc` iframe, which inherits this policy)
 * carries the email's own `<style>` and `style=""`, as a delivery does. Images may be remote for the
 * same reason; a preview without its images would not show what a delivery carries.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(reply: FastifyReply) {
  reply.header('content-security-policy', CONSOLE_CSP);
  reply.header('x-frame-options', 'DENY');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('cross-origin-opener-policy', 'same-origin');
}

/**
 * The built console: dist/console/ beside the compiled server (dist/src/http → dist/console), or, when
 * the server runs from source (tests, `npm run dev`), the repository's dist/console/.
 */
export function consoleDirectory(): string | undefined {
  const here = fileURLToPath(new URL('.', import.meta.url));
  // The built folder has assets/; the repository's console/ (the sources) does not.
  return [join(here, '../../console'), join(here, '../../dist/console')].find((dir) => existsSync(join(dir, 'assets')));
}

/**
 * `/console/` and every path under it: the built assets as files, any other path the app's page (the
 * console routes in the browser). The page names the management prefix in a meta tag, so the app
 * needs no inline script to find the API.
 */
export async function registerConsole(app: FastifyInstance, managementPrefix: string) {
  const schema = { hide: true };
  app.get('/', { schema }, async (_request, reply) => reply.redirect(ROOT_REDIRECT, 302));
  const root = consoleDirectory();
  const page = root
    ? readFileSync(join(root, 'index.html'), 'utf8').replace(
        /<meta name="herald-management-prefix" content="[^"]*"/,
        `<meta name="herald-management-prefix" content="${managementPrefix.replace(/[^A-Za-z0-9_\-/]/g, '')}"`,
      )
    : undefined;
  const sendPage = async (_request: unknown, reply: FastifyReply) => {
    securityHeaders(reply);
    reply.header('cache-control', 'no-cache');
    if (!page)
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The console is not built: run `npm run build:console` (npm ci does it).');
    return reply.type('text/html; charset=utf-8').send(page);
  };
  const pageSchema = { hide: true, response: { 200: Type.String(), 503: Type.String() } };
  app.get('/console', { schema: pageSchema }, sendPage);
  if (root) {
    await app.register(async (scoped) => {
      scoped.addHook('onSend', async (_request, reply, payload) => {
        securityHeaders(reply);
        return payload;
      });
      await scoped.register(fastifyStatic, {
        root: join(root, 'assets'),
        prefix: '/console/assets/',
        decorateReply: false,
        index: false,
        immutable: true,
        maxAge: '365d',
      });
    });
  }
  // Static files win over this wildcard under /console/assets/ (the more specific route).
  app.get('/console/*', { schema: pageSchema }, sendPage);
}
