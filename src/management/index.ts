import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { vendorRoutes } from './vendors.js';
import { webhookEndpointRoutes } from './webhook-endpoints.js';
import { serviceTokenSteps } from '../auth/service-token-auth.js';
import { withErrorShape } from '../http/error-shape.js';
import { apiKeyRoutes } from './api-keys.js';
import { preferenceCategoryRoutes } from './preference-categories.js';
import { inboxKeyRoutes } from './inbox-keys.js';
import { templateRoutes } from './templates.js';
import { templateVariantRoutes } from './template-variants.js';
import { templateApprovalRoutes } from './template-approvals.js';
import { translationRoutes } from './translations.js';
import { translationVersionRoutes } from './translation-versions.js';
import { preferenceCategoryTranslationRoutes } from './preference-category-translations.js';
import { payloadSchemaRoutes } from './payload-schemas.js';
import { registeredEventRoutes } from './registered-events.js';
import { workflowCommitRoutes } from './workflow-commits.js';
import { workflowRoutes } from './workflows.js';
import { workspaceKeyRoutes } from './workspace-keys.js';
import { workspaceRoutes } from './workspaces.js';
import { workflowRunRoutes } from '../base/workflow-runs.js';
import { messageReadRoutes } from '../base/messages.js';
import { userReadRoutes } from '../base/users.js';
import { userPreferenceReadRoutes } from '../base/user-preferences.js';
import { objectReadRoutes } from '../base/objects.js';
import { subscriptionReadRoutes } from '../base/subscriptions.js';
import { subscriberListReadRoutes, userListRoutes } from '../base/subscriber-lists.js';
import { templatePreviewRoutes } from './template-preview.js';
import { workflowTestRunRoutes } from './workflow-test-run.js';
import { queueRoutes } from './queue.js';

/** The management surface: ops calls, authenticated by service token; all but /v1/workspace/ scoped by `{workspace}`. */
export const managementTree: FastifyPluginAsyncTypebox = async (app) => {
  const deps = { db: app.db, credentials: app.credentials };
  // A failed authentication, an unknown workspace included, spends the client address's budget.
  const { authenticate, resolveWorkspace } = serviceTokenSteps(deps, (request, reply) =>
    app.limitFailedAuthentication(request, reply),
  );
  app.addHook('onRequest', async (request, reply) => {
    request.auth = await authenticate(request, reply);
  });

  await app.register(withErrorShape('full', workspaceRoutes));
  await app.register(async (scoped) => {
    // After the token hook above: an unauthenticated caller learns nothing about which slugs exist.
    scoped.addHook('onRequest', async (request, reply) => {
      request.workspace = await resolveWorkspace(request, reply);
    });
    await scoped.register(withErrorShape('full', workspaceKeyRoutes));
    await scoped.register(withErrorShape('full', apiKeyRoutes));
    // docs/spec/interface.md §6: preference categories answer errors in the short shape.
    await scoped.register(withErrorShape('short', preferenceCategoryRoutes));
    await scoped.register(withErrorShape('short', preferenceCategoryTranslationRoutes));
    await scoped.register(withErrorShape('full', workflowRoutes));
    await scoped.register(withErrorShape('full', workflowCommitRoutes));
    await scoped.register(withErrorShape('full', translationRoutes));
    await scoped.register(withErrorShape('full', translationVersionRoutes));
    await scoped.register(withErrorShape('full', payloadSchemaRoutes));
    await scoped.register(withErrorShape('full', registeredEventRoutes));
    await scoped.register(withErrorShape('full', templateRoutes));
    await scoped.register(withErrorShape('full', templateVariantRoutes));
    await scoped.register(withErrorShape('full', templateApprovalRoutes));
    await scoped.register(withErrorShape('full', inboxKeyRoutes));
    await scoped.register(withErrorShape('full', vendorRoutes));
    await scoped.register(withErrorShape('full', webhookEndpointRoutes));
    // Twins of the base surface's reads the console needs (docs/management-twins.md).
    await scoped.register(withErrorShape('full', workflowRunRoutes('management')));
    await scoped.register(withErrorShape('full', messageReadRoutes('management')));
    // In the error shape of their base routes (docs/spec/interface.md §6).
    await scoped.register(withErrorShape('short', userReadRoutes('management')));
    await scoped.register(withErrorShape('short', userPreferenceReadRoutes('management')));
    await scoped.register(withErrorShape('short', objectReadRoutes('management')));
    await scoped.register(withErrorShape('short', subscriptionReadRoutes('management')));
    await scoped.register(withErrorShape('full', subscriberListReadRoutes('management')));
    await scoped.register(withErrorShape('short', userListRoutes('management')));
    await scoped.register(withErrorShape('full', templatePreviewRoutes));
    await scoped.register(withErrorShape('full', workflowTestRunRoutes));
    await scoped.register(withErrorShape('full', queueRoutes));
  });
};
