import { deliver, deliveredStep, multiChannels } from './delivery.js';
import type { NodeHandler } from './types.js';

/** `send_multi_channel`: its template on each of its channels. */
export const sendMultiChannel: NodeHandler = async (context) => {
  return { kind: 'next', step: deliveredStep(await deliver(context, multiChannels(context))) };
};
