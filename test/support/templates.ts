import { namedTemplates } from '../../src/domain/workflow-rules.js';
import type { TestApp } from './app.js';
import type { WorkspaceFixture } from './fixtures.js';

/**
 * Templates for tests, through the template API: a workflow commit refuses a delivery node whose
 * template does not exist or has no committed version (issue #32), so tests commit the templates a
 * workflow names before committing the workflow.
 */

const CONTENT: Record<string, object> = {
  inbox: { header: 'Hello', text: 'Hi {{$recipient.distinct_id}}' },
  email: { subject: 'Hi', html: '<p>Hi {{$recipient.distinct_id}}</p>', text: 'Hi {{$recipient.distinct_id}}' },
  sms: { text: 'Hi {{$recipient.distinct_id}}' },
};

/** A live template with a variant for each channel (inbox, email, sms). */
export async function liveTemplate(t: () => TestApp, ws: WorkspaceFixture, slug: string, channels: string[]) {
  const call = async (method: 'POST' | 'PATCH', path: string, body: unknown) => {
    const response = await t().app.inject({
      method,
      url: `/management/v2/${ws.slug}${path}`,
      headers: ws.management,
      payload: body as object,
    });
    if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.body}`);
  };
  await call('POST', `/template/${slug}/`, { name: slug, enabled_channels: channels });
  for (const channel of channels)
    await call('POST', `/template/${slug}/channel/${channel}/variant/default/`, {
      locale: 'en',
      content: CONTENT[channel],
    });
  await call('PATCH', `/template/${slug}/commit/`, {});
}

/**
 * Commits an inbox template for each template the tree's delivery nodes name that does not exist
 * yet; a template the test made itself (live or draft) is left as it is.
 */
export async function liveTemplatesOf(t: () => TestApp, ws: WorkspaceFixture, tree: unknown) {
  for (const slug of namedTemplates([{ tree }])) {
    const found = await t().app.inject({
      method: 'GET',
      url: `/management/v2/${ws.slug}/template/${slug}/`,
      headers: ws.management,
    });
    if (found.statusCode === 404) await liveTemplate(t, ws, slug, ['inbox']);
  }
}
