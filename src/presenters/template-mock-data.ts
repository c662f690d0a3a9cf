/**
 * Mock data: what the operator stored, and what a template rendered with it would see. Herald
 * resolves nothing from the database here (ours): the recipient and actor carry only their
 * distinct_id, the brand only its tenant id; the render context at send time is richer.
 */
export function presentMockData(stored: Record<string, unknown> | null) {
  const raw = stored ?? {};
  const data = {
    payload: (raw.payload as Record<string, unknown> | undefined) ?? {},
    tenant_id: (raw.tenant_id as string | null | undefined) ?? null,
    is_batch: (raw.is_batch as boolean | undefined) ?? false,
    batch_count: (raw.batch_count as number | undefined) ?? 2,
    recipient_sub_type: (raw.recipient_sub_type as string | undefined) ?? 'user',
    recipient_object: (raw.recipient_object as { object_type: string; id: string } | null | undefined) ?? null,
    recipient_distinct_id: (raw.recipient_distinct_id as string | null | undefined) ?? null,
    actor_sub_type: (raw.actor_sub_type as string | undefined) ?? 'user',
    actor_object: (raw.actor_object as { object_type: string; id: string } | null | undefined) ?? null,
    actor_distinct_id: (raw.actor_distinct_id as string | null | undefined) ?? null,
  };
  const identity = (distinctId: string | null, object: { object_type: string; id: string } | null) =>
    object ? { ...object } : distinctId ? { distinct_id: distinctId } : {};
  const recipient = identity(data.recipient_distinct_id, data.recipient_object);
  const transformed: Record<string, unknown> = {
    ...data.payload,
    $brand: { brand_id: data.tenant_id ?? 'default' },
    $recipient: recipient,
    $user: recipient,
    $actor: identity(data.actor_distinct_id, data.actor_object),
  };
  if (data.is_batch) {
    transformed.$batched_events = Array.from({ length: data.batch_count }, () => data.payload);
    transformed.$batched_events_count = data.batch_count;
  }
  return { data, transformed_data: transformed };
}
