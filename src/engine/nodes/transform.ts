import { evaluateJsonnet } from '../../domain/jsonnet.js';
import { mergeRunData } from '../../repositories/runs.js';
import { fillTemplate } from './object-subscription.js';
import type { NodeHandlerOf } from './types.js';

/**
 * `transform`: sets or overrides data variables for the steps after it, each `variables[]` entry a
 * `key` and a `value` in `value_lang` `jsonnet` or `handlebars`. A jsonnet value is the trivial
 * JSONNET (src/domain/jsonnet.ts); a handlebars value is a text whose `{{path}}` parts are read from
 * the run.
 */
export const transform: NodeHandlerOf<'transform'> = async (context, { variables }) => {
  const output: Record<string, unknown> = {};
  for (const variable of variables) {
    if (variable.value_lang === 'handlebars') {
      output[variable.key] = fillTemplate(variable.value, context.namespaces);
      continue;
    }
    output[variable.key] = evaluateJsonnet(variable.value, context.namespaces) ?? null;
  }
  await mergeRunData(context.trx, context.run.id, output);
  context.namespaces.data = { ...context.namespaces.data, ...output };
  return { kind: 'next' };
};
