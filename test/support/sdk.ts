import { Suprsend } from '@suprsend/node-sdk';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './app.js';
import type { WorkspaceFixture } from './fixtures.js';

/** The official backend SDK, pointed at the test app listening on a real port on 127.0.0.1. */
export async function sdkFor(t: TestApp, ws: Pick<WorkspaceFixture, 'workspaceKey' | 'workspaceSecret'>) {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return new Suprsend(ws.workspaceKey, ws.workspaceSecret, { base_url: `http://127.0.0.1:${port}/` });
}
