import { field } from '../../domain/workflow-tree.js';
import { readExpression } from '../../domain/paths.js';
import { mergeRunData } from '../../repositories/runs.js';
import { fillTemplate } from './object-subscription.js';
import type { NodeHandler } from './types.js';

/**
 * `transform`: sets or overrides data variables for the steps after it, each `variables[]` entry a
 * `key` and a `value` in `value_lang` `jsonnet` or `handlebars`. (ours, until a JSONNET library is
 * in) A jsonnet value is plain JSON (the trivial JSONNET) or a path read from the run (`data.x`,
 * `.x`, `$recipient.x`); a handlebars value is a text whose `{{path}}` parts are read from the run.
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
    const text = raw.trim();
    try {
      output[variable.key] = JSON.parse(text);
    } catch {
      const expr = text.startsWith('data.') ? text.slice(4) : text;
      output[variable.key] = readExpression(context.namespaces, expr) ?? null;
    }
  }
  await mergeRunData(context.trx, context.run.id, output);
  context.namespaces.data = { ...context.namespaces.data, ...output };
  return { kind: 'next' };
};
