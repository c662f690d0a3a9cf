import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layer arrows of docs/ARCHITECTURE.md, as eslint.config.js keeps them: the lint run on a file placed in a
 * layer, importing from another. Presenters are called by routes only; the one service that calls one is the
 * webhook event body (services/webhook-events.ts), a wire shape stored and sent as is.
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function layerErrors(filePath: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'boundaries/dependencies').map((m) => m.message);
}

const presenterImport =
  "import { presentNotification } from '../presenters/feed.js';\nexport const shown = presentNotification;\n";
const presenterTypeImport =
  "import type { presentMessage } from '../presenters/messages.js';\nexport type Shown = typeof presentMessage;\n";

describe('layer boundaries', () => {
  it('refuses a presenter imported by a service, a type-only import included', async () => {
    expect(await layerErrors('src/services/layer-probe.ts', presenterImport)).toEqual([
      expect.stringContaining('from elements of type "services" to elements of type "presenters"'),
    ]);
    expect(await layerErrors('src/services/layer-probe.ts', presenterTypeImport)).toHaveLength(1);
  });

  it('refuses a presenter imported by the engine, a repository or a domain rule', async () => {
    for (const layer of ['engine', 'repositories', 'domain'])
      expect(await layerErrors(`src/${layer}/layer-probe.ts`, presenterImport)).toHaveLength(1);
  });

  it('lets a route and the webhook event body call a presenter', async () => {
    expect(await layerErrors('src/base/layer-probe.ts', presenterImport)).toEqual([]);
    expect(await layerErrors('src/management/layer-probe.ts', presenterImport)).toEqual([]);
    expect(await layerErrors('src/services/webhook-events.ts', presenterImport)).toEqual([]);
  });
});
