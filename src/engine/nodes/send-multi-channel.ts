import { deliver, multiChannels } from './delivery.js';
import type { NodeHandler } from './types.js';

/** `send_multi_channel`: its template on each of its channels. */
export const sendMultiChannel: NodeHandler = async (context) => {
  await deliver(context, multiChannels(context));
  return { kind: 'next' };
};
