import { deliveryNode } from './delivery.js';

/** `send_slack`: its template on the slack channel. */
export const sendSlack = deliveryNode(['slack']);
