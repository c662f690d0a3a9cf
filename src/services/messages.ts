/** Messages as the message routes read and change them: the forward-only status rule and the message rows. */
export { applyMessageAction, type MessageState } from '../domain/message-actions.js';
export { cursorWindow } from '../repositories/cursor-page.js';
export { findMessage, listMessages, lockMessages, saveMessageStates } from '../repositories/messages.js';
