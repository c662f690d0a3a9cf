import { Type } from '@sinclair/typebox';

/** Longest query text accepted (ours): generous for a segment, small enough to parse in milliseconds. */
export const SEGMENT_QUERY_MAX_LENGTH = 10_000;

export const DryRunBodySchema = Type.Object({
  query: Type.String({
    maxLength: SEGMENT_QUERY_MAX_LENGTH,
    description: 'SQL over the users and events tables only; must return a distinct_id column',
    examples: ["select distinct_id, active_emails from users where 'email' = any(active_channels)"],
  }),
});

export const SegmentRowSchema = Type.Object(
  { distinct_id: Type.Unknown() },
  { additionalProperties: true, description: 'distinct_id and any other selected columns, with their JSON types' },
);

export const DryRunResultSchema = Type.Object({
  data: Type.Array(SegmentRowSchema, { maxItems: 10, description: 'at most the top 10 matched rows' }),
});
