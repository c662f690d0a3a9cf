import { field } from '../../domain/workflow-tree.js';
import { evaluateJsonnet } from '../../domain/jsonnet.js';
import { mergeRunData } from '../../repositories/runs.js';
import { fillTemplate } from './object-subscription.js';
import type { NodeHandler } from './types.js';

/**
 * `transform`: sets or overrides data variables for the steps after it, each `variables[]` entry a
 * `key` and a `value` in `value_lang` `jsonnet` or `handlebars`. A jsonnet value is the trivial
 * JSONNET (src/domain/jsonnet.ts); a handlebars value is a text whose `{{path}}` parts are read from
 * the run.
 */
export const transform: NodeHandler = async (context) => {
  const variables = field(context.node, 'variables');
  if (!Array.isArray(variables)) return { kind: 'next' };
  const output: Record<string, unknown> = {};
  for (const variable of variables as { key?: unknown; value_lang?: unknown; value?: unknown }[]) {
    if (!variable || typeof variable.key !== 'string' || variable.key === '') continue;
    const raw = typeof variable.value === 'string' ? variable.value : '';
    if (variable.value_lang === 'handlebars') {
      output[variable.key] = fillTemplate(raw, context.namespaces);
      continue;
    }
    output[variable.key] = evaluateJsonnet(raw, context.namespaces) ?? null;
  }
  await mergeRunData(context.trx, context.run.id, output);
  context.namespaces.data = { ...context.namespaces.data, ...output };
  return { kind: 'next' };
};
