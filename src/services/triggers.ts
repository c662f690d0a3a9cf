/**
 * What the trigger routes need besides the engine's intake: the readers that turn a request record
 * (a trigger, domain/trigger-records.ts; a broadcast, domain/broadcasts.ts) into an intake record,
 * and the cancel of pending executions.
 */
export { checkWith, RecordError, readRecipient, readTriggerRecord } from '../domain/trigger-records.js';
export { cancelExecutions } from '../repositories/executions.js';
export { boundedTriggerAt, readBroadcast } from '../domain/broadcasts.js';
export { legacySmartNode } from '../domain/legacy-workflows.js';
