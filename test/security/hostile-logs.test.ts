import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { findCredentials } from '../support/secrets.js';

/**
 * The workspace key in a legacy path never reaches the log, however the path is spelled (issue 25,
 * point 7): redacted by the route the request matched, not by one spelling of the path.
 */
describe('the workspace key in a legacy path', () => {
  it('is redacted from every log line, with or without the trailing slash, with a query string, in any case', async () => {
    const t = await buildTestApp({ LOG_LEVEL: 'debug' });
    try {
      const ws = await createWorkspaceFixture(t);
      const key = ws.workspaceKey;
      const paths = [
        `/${key}/trigger/`,
        `/${key}/trigger`,
        `/${key}/trigger?x`,
        `/${key}/trigger/?x=1`,
        `/${key}/broadcast`,
        `/${key}/broadcast?x`,
        `/${key}/broadcast/`,
        `/${key}/Trigger`,
        `/${key}/event`,
      ];
      for (const [i, url] of paths.entries()) {
        const response = await t.app.inject({
          method: 'POST',
          url,
          headers: { 'x-request-id': `legacy-log-${i}`, authorization: ws.base.authorization },
          payload: {},
        });
        expect(response.statusCode, url).toBeGreaterThanOrEqual(400);
        const lines = t.logs.filter((line) => line.reqId === `legacy-log-${i}`);
        expect(lines.length, url).toBeGreaterThan(0);
        // Positive control: the path's tail is still logged.
        const logged = (lines[0]!.req as { url: string }).url;
        expect(logged, url).toBe(url.replace(key, '[workspace_key]'));
      }
      expect(JSON.stringify(t.logs)).not.toContain(key);
      expect(findCredentials(t.logs)).toEqual([]);
    } finally {
      await t.close();
    }
  }, 120_000);
});
