import { deliveryNode } from './delivery.js';

/** `send_inbox`: its template on the inbox channel. */
export const sendInbox = deliveryNode(['inbox']);
