import { deliveryNode } from './delivery.js';

/** `send_ms_teams`: its template on the ms_teams channel. */
export const sendMsTeams = deliveryNode(['ms_teams']);
