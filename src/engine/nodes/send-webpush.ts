import { deliveryNode } from './delivery.js';

/** `send_webpush`: its template on the webpush channel. */
export const sendWebpush = deliveryNode(['webpush']);
