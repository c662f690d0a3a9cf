import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { openPreferenceLink } from '../auth/preference-link.js';
import {
  presentLinkExpiredPage,
  presentPreferencePage,
  presentUnsubscribePage,
} from '../presenters/preference-page.js';
import { parseFormBodies } from '../http/form-bodies.js';
import { fullErrors } from '../schemas/common.js';
import { readUserPreferences, setUserPreferences } from '../services/user-preferences.js';
import { findCategory } from '../domain/preference-category-rules.js';

const TokenParamsSchema = Type.Object({ token: Type.String({ minLength: 1, maxLength: 1000 }) });
const FormSchema = Type.Record(Type.String(), Type.String());
const Html = { content: { 'text/html': { schema: { type: 'string', description: 'an HTML page' } } } } as const;
const FORM_BODY_LIMIT = 64 * 1024;

/**
 * The hosted preference page and one-click unsubscribe (docs/spec/product.md §4, docs/clients.md):
 * reached from the signed links every email can carry, no key and no script. A link that is not
 * Herald's or has expired is a 404 page, whatever was wrong with it.
 */
export const preferencePageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['preference page'];
  // The page's form posts and RFC 8058's one-click POST (`List-Unsubscribe=One-Click`) are urlencoded,
  // at most FORM_BODY_LIMIT; any other body meets the app's parsers and limits, as on every route.
  parseFormBodies(app, FORM_BODY_LIMIT);
  const html = (reply: FastifyReply, status: number, page: string) =>
    reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
  const linkOf = (token: string) => openPreferenceLink(app.secretBox, token, Date.now());

  /** The user's categories in the link's tenant, or undefined when the user or tenant is gone. */
  const preferencesOf = (link: { w: number; t: string; d: string }) =>
    readUserPreferences(app.db, link.w, link.t, link.d).catch((error: { status?: number }) => {
      if (error.status === 404) return undefined;
      throw error;
    });

  const schema = (operationId: string, summary: string, body?: typeof FormSchema) => ({
    tags,
    operationId,
    summary,
    // No key: the signed link in the path is the credential.
    security: [],
    params: TokenParamsSchema,
    ...(body ? { body } : {}),
    // The pages are HTML; a body the app's parsers refuse before the handler (malformed, too deep)
    // is answered as every route answers it, in the full JSON error shape.
    response: { 200: Html, 404: Html, ...fullErrors(400) },
  });

  app.get(
    '/preferences/:token',
    { schema: schema('preferencePage', "The user's preference page (HTML, no script)") },
    async (request, reply) => {
      const link = linkOf(request.params.token);
      const found = link && (await preferencesOf(link));
      if (!found) return html(reply, 404, presentLinkExpiredPage());
      return html(reply, 200, presentPreferencePage(found.roots, found.state, request.url));
    },
  );

  app.post(
    '/preferences/:token',
    {
      schema: schema(
        'savePreferencePage',
        'Save the page: each shown category on when checked, off when not',
        FormSchema,
      ),
    },
    async (request, reply) => {
      const link = linkOf(request.params.token);
      if (!link || !(await preferencesOf(link))) return html(reply, 404, presentLinkExpiredPage());
      const form = request.body as Record<string, string>;
      const shown = (form.shown ?? '').split(',').filter(Boolean);
      const { roots } = (await preferencesOf(link))!;
      // Only editable categories of the live definition; anything else in the form is ignored.
      const categories = shown
        .filter((slug) => {
          const category = findCategory(roots, slug);
          return category && category.default_preference !== 'cant_unsubscribe';
        })
        .map((slug) => ({ category: slug, preference: form[`category:${slug}`] === 'opt_in' ? 'opt_in' : 'opt_out' }));
      const saved = await app.db
        .transaction()
        .execute((trx) => setUserPreferences(trx, link.w, link.t, link.d, { categories }));
      return html(
        reply,
        200,
        presentPreferencePage(saved.roots, saved.state, request.url, 'Your preferences are saved.'),
      );
    },
  );

  app.get(
    '/unsubscribe/:token',
    {
      schema: schema('unsubscribePage', 'Asks to confirm the unsubscribe (a mail scanner fetching it changes nothing)'),
    },
    async (request, reply) => {
      const link = linkOf(request.params.token);
      const found = link && (await preferencesOf(link));
      const category = found && link.c ? findCategory(found.roots, link.c) : undefined;
      if (!link || !found) return html(reply, 404, presentLinkExpiredPage());
      const preferencesUrl = `/preferences/${request.params.token}`;
      if (!category) return reply.redirect(preferencesUrl, 303);
      return html(reply, 200, presentUnsubscribePage(category.name, request.url, preferencesUrl, false));
    },
  );

  app.post(
    '/unsubscribe/:token',
    {
      schema: schema(
        'unsubscribe',
        "Opts the user out of the link's category: RFC 8058's one-click POST, or the page's button",
        FormSchema,
      ),
    },
    async (request, reply) => {
      const link = linkOf(request.params.token);
      const found = link && (await preferencesOf(link));
      if (!link || !found) return html(reply, 404, presentLinkExpiredPage());
      const category = link.c ? findCategory(found.roots, link.c) : undefined;
      // A link whose category is gone or may not be left is a link that no longer applies: the same 404 page.
      if (!category || category.default_preference === 'cant_unsubscribe')
        return html(reply, 404, presentLinkExpiredPage());
      await app.db.transaction().execute((trx) =>
        setUserPreferences(trx, link.w, link.t, link.d, {
          categories: [{ category: category.category, preference: 'opt_out' }],
        }),
      );
      const preferencesUrl = `/preferences/${request.params.token}`;
      return html(reply, 200, presentUnsubscribePage(category.name, request.url, preferencesUrl, true));
    },
  );
};
