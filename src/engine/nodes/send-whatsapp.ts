import { deliveryNode } from './delivery.js';

/** `send_whatsapp`: its template on the whatsapp channel. */
export const sendWhatsapp = deliveryNode(['whatsapp']);
