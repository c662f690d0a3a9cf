import { deliveryNode } from './delivery.js';

/** `send_email`: its template on the email channel. */
export const sendEmail = deliveryNode(['email']);
