import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { errors } from '../schemas/common.js';
import { DryRunBodySchema, DryRunResultSchema, SEGMENT_QUERY_MAX_LENGTH } from '../schemas/segments.js';
import { checkSegmentQuery } from '../segments/guard.js';
import { segmentQueryError } from '../segments/query-error.js';

/** A body that fails the schema is reported like any other bad query: error_code `error`, detail under `query`. */
function bodyProblem(issues: FastifySchemaValidationError[]): string {
  const issue = issues[0];
  if (issue?.keyword === 'maxLength') return `the query is longer than ${SEGMENT_QUERY_MAX_LENGTH} characters`;
  if (issue?.keyword === 'type' && issue.instancePath === '/query') return 'the query must be a string';
  return 'the query is required';
}

/** Subscriber lists: a dry run previews which users a segment query matches, changing nothing. */
export const segmentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/subscriber_list/~/dry_run/',
    {
      attachValidation: true,
      schema: {
        tags: ['subscriber lists'],
        operationId: 'dryRunSubscriberListQuery',
        summary: 'Dry-run a segment query',
        description:
          "Runs a read-only SQL query over the workspace's `users` and `events` and returns at most the top 10 rows. " +
          'users: distinct_id, created_at, updated_at, language, locale, timezone, user_properties, active_channels, ' +
          'active_emails, active_phone_numbers. events: distinct_id, event, properties, created_at, tenant_id.',
        body: DryRunBodySchema,
        response: { 200: DryRunResultSchema, ...errors(400, 401) },
      },
    },
    async (request) => {
      if (request.validationError) throw segmentQueryError(bodyProblem(request.validationError.validation));
      const checked = await checkSegmentQuery(request.body.query);
      const data = await app.segmentRunner.run(checked.statement, request.workspace.id);
      return { data };
    },
  );
};
