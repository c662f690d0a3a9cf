import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outboundPolicy } from '../../src/channels/outbound.js';
import { useTestApp, type TestApp } from '../support/app.js';
import { HttpPeer } from '../support/http-peer.js';
import { engineWorkspace, inbox, liveWorkflow, messages, node, trigger, waitFor } from '../support/engine-drivers.js';
import { runOf } from '../support/flow.js';

/**
 * The workflow HTTP nodes call through the outbound guard (src/channels/outbound.ts; docs/engine.md,
 * "httpapi_webhook and httpapi_fetch: the outbound guard"): a URL on a loopback, link-local or private
 * address, or a host name resolving to one, is never called and fails the run, unless the policy allows it.
 */
async function runTo(t: () => TestApp, nodeType: string, url: string) {
  const ws = await engineWorkspace(t);
  await liveWorkflow(t, ws, 'call-out', [node(nodeType, { url, output_key: 'answer' }), inbox('after')]);
  const response = await trigger(t, ws, { workflow: 'call-out', recipients: ['hx'] });
  expect(response.statusCode).toBe(202);
  const id = response.json().message_id as string;
  const run = await waitFor(async () => {
    const r = await runOf(t, id);
    return r?.status === 'failed' || r?.status === 'completed' ? r : undefined;
  });
  return { run, messages: (await messages(t, ws, `?execution_id=${id}`)).results };
}

describe('the workflow HTTP nodes go through the outbound guard', () => {
  let peer: HttpPeer;
  beforeAll(async () => {
    peer = await HttpPeer.start();
  });
  beforeEach(() => {
    peer.reset();
    peer.answerAlways({ status: 200, body: { tier: 'gold' } });
  });
  afterAll(() => peer.close());

  describe('by default', () => {
    const t = useTestApp({}, { engine: {} });
    const port = () => new URL(peer.url).port;

    it('refuses a loopback URL without calling it: the run fails and the steps after it never run', async () => {
      for (const nodeType of ['httpapi_webhook', 'httpapi_fetch']) {
        const { run, messages: sent } = await runTo(t, nodeType, `${peer.url}/hook`);
        expect(run.status).toBe('failed');
        expect(run.data).toEqual({});
        expect(sent).toEqual([]);
      }
      expect(peer.requests).toHaveLength(0);
    });

    it('refuses a host name that resolves to a loopback address, at connection time', async () => {
      const { run, messages: sent } = await runTo(t, 'httpapi_webhook', `http://localhost:${port()}/hook`);
      expect(run.status).toBe('failed');
      expect(sent).toEqual([]);
      expect(peer.requests).toHaveLength(0);
    });

    it('refuses the cloud metadata address', async () => {
      const { run } = await runTo(t, 'httpapi_fetch', 'http://169.254.169.254/latest/meta-data/');
      expect(run.status).toBe('failed');
    });
  });

  describe('where the policy allows the local receiver', () => {
    const t = useTestApp({}, { engine: { engine: { outbound: outboundPolicy({ allowedHosts: 'localhost' }) } } });
    const port = () => new URL(peer.url).port;

    it('calls it and keeps the answer; the metadata address stays refused', async () => {
      const { run, messages: sent } = await runTo(t, 'httpapi_webhook', `http://localhost:${port()}/hook`);
      expect(run.status).toBe('completed');
      expect(run.data).toEqual({ answer: { tier: 'gold' } });
      expect(sent).toHaveLength(1);
      expect(peer.last.path).toBe('/hook');
      expect((await runTo(t, 'httpapi_fetch', 'http://169.254.169.254/latest/meta-data/')).run.status).toBe('failed');
    });

    it('does not follow a redirect (it could name an address no lookup checks)', async () => {
      peer.answerAlways({ status: 302, headers: { location: `http://localhost:${port()}/elsewhere` } });
      const ws = await engineWorkspace(t);
      await liveWorkflow(t, ws, 'redirected', [node('httpapi_fetch', { url: `http://localhost:${port()}/start` })]);
      const id = (await trigger(t, ws, { workflow: 'redirected', recipients: ['hy'] })).json().message_id as string;
      await waitFor(async () => peer.requests.length > 0);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(peer.requests.map((r) => r.path)).not.toContain('/elsewhere');
      // A 3xx answer fails the call as any non-2xx does: the run is not moved on.
      expect((await runOf(t, id))?.status).toBe('running');
    });
  });
});
