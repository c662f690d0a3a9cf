import { deliveryNode } from './delivery.js';

/** `send_mobile_push`: its template on both push channels, each decided on its own (Android, iOS). */
export const sendMobilePush = deliveryNode(['androidpush', 'iospush']);
