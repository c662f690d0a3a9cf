import type { AddedSubscription, listSubscribedTo, listSubscribers } from '../repositories/subscriptions.js';
import type { ObjectRow } from '../repositories/objects.js';
import { iso } from '../schemas/common.js';
import { summarizeObject } from './objects.js';

/** One added subscription, with the rows the answer shows; in the recipients' order. */
type SubscriberRow = Awaited<ReturnType<typeof listSubscribers>>['results'][number];
type SubscribedToRow = Awaited<ReturnType<typeof listSubscribedTo>>['results'][number];

/** Subscription, as add subscriptions answers it. */
export const presentAddedSubscription = ({ subscription, user, object, child }: AddedSubscription) => ({
  properties: subscription.properties,
  user: user ? { distinct_id: user.distinct_id, updated_at: iso(user.updated_at) } : null,
  object: summarizeObject(object),
  child_object: child ? summarizeObject(child) : null,
  created_at: iso(subscription.created_at),
  updated_at: iso(subscription.updated_at),
});

/** Subscription, as the list of an object's subscribers shows it. */
export const presentSubscriber = (parent: ObjectRow) => {
  const object = summarizeObject(parent);
  return (row: SubscriberRow) => ({
    properties: row.properties,
    user:
      row.user_distinct_id !== null
        ? { distinct_id: row.user_distinct_id, updated_at: iso(row.user_updated_at!) }
        : null,
    object,
    child_object:
      row.child_id !== null
        ? summarizeObject({
            object_type: row.child_object_type!,
            object_id: row.child_id,
            subscriptions_count: row.child_subscriptions_count!,
            updated_at: row.child_updated_at!,
          })
        : null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  });
};

/** SubscribedTo: an object the user or object is subscribed to. */
export const presentSubscribedTo = (row: SubscribedToRow) => ({
  properties: row.properties,
  object: summarizeObject({ ...row, updated_at: row.object_updated_at }),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});
