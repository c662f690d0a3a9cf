import { deliveryNode } from './delivery.js';

/** `send_sms`: its template on the sms channel. */
export const sendSms = deliveryNode(['sms']);
