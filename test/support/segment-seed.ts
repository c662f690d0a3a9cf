import { beforeAll } from 'vitest';
import type { TestApp } from './app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from './fixtures.js';

const entry = (value: string, status = 'active', perma_status = 'active') => ({ value, status, perma_status });

interface SeedUser {
  distinct_id: string;
  properties?: Record<string, unknown>;
  channels?: Record<string, unknown[]>;
  created_at?: string;
}

/** The workspace the segment tests query: five described users, twelve plain ones, a few events. */
const USERS: SeedUser[] = [
  {
    distinct_id: 'alice',
    properties: { plan: 'pro', age: 34, country: 'FR', $locale: 'fr_FR', $timezone: 'Europe/Paris' },
    channels: { $email: [entry('alice@x.com')], $sms: [entry('+33600000001')] },
    created_at: '2025-01-01T00:00:00Z',
  },
  {
    distinct_id: 'bob',
    properties: { plan: 'free', age: 22, $locale: 'en_US', $timezone: 'America/New_York', $preferred_language: 'en' },
    channels: { $email: [entry('bob@x.com', 'inactive')], $whatsapp: [entry('+15550000002')] },
    created_at: '2025-02-01T00:00:00Z',
  },
  {
    distinct_id: 'carol',
    properties: { plan: 'pro', age: 45, $locale: 'de_DE' },
    channels: {
      $email: [entry('carol@x.com'), entry('carol.old@x.com', 'active', 'disabled')],
      $inbox: [{ ...entry('carol-inbox'), id_provider: 'suprsend' }],
    },
    created_at: '2025-03-01T00:00:00Z',
  },
  {
    distinct_id: 'dave',
    properties: { plan: 'enterprise', tags: ['beta', 'vip'] },
    created_at: '2025-04-01T00:00:00Z',
  },
  {
    distinct_id: 'eve',
    properties: { plan: 'free', age: 29 },
    channels: { $sms: [entry('+441100000005')], $whatsapp: [entry('+441100000005'), entry('+441100000006')] },
    created_at: '2025-05-01T00:00:00Z',
  },
  ...Array.from({ length: 12 }, (_, i) => ({
    distinct_id: `user-${String(i + 1).padStart(2, '0')}`,
    properties: { plan: 'trial' },
    created_at: '2025-08-01T00:00:00Z',
  })),
];

const EVENTS = [
  { distinct_id: 'alice', event: 'purchase', properties: { amount: 10 }, created_at: '2025-06-01T10:00:00Z' },
  { distinct_id: 'alice', event: 'purchase', properties: { amount: 20 }, created_at: '2025-06-02T10:00:00Z' },
  { distinct_id: 'alice', event: 'purchase', properties: { amount: 30 }, created_at: '2025-06-03T10:00:00Z' },
  { distinct_id: 'alice', event: 'login', properties: {}, created_at: '2025-06-04T10:00:00Z' },
  { distinct_id: 'bob', event: 'login', properties: {}, created_at: '2025-06-05T10:00:00Z', tenant_id: 'acme' },
  { distinct_id: 'bob', event: 'login', properties: {}, created_at: '2025-07-05T10:00:00Z', tenant_id: 'acme' },
  { distinct_id: 'carol', event: 'purchase', properties: { amount: 100 }, created_at: '2025-06-10T10:00:00Z' },
  { distinct_id: 'eve', event: 'signup', properties: { source: 'ads' }, created_at: '2025-05-01T00:00:00Z' },
];

/** Strings that exist only in the other workspace: no response may ever contain one. */
export const OTHER_WORKSPACE_MARKERS = ['other-secret', 'stolen', 'secret.example'];

export interface SegmentSeed {
  ws: WorkspaceFixture;
  other: WorkspaceFixture;
}

/** Two workspaces, seeded straight into the tables as the users/events API writes them. */
export async function seedSegmentWorkspaces(t: TestApp): Promise<SegmentSeed> {
  const ws = await createWorkspaceFixture(t);
  const other = await createWorkspaceFixture(t);
  const row = (workspaceId: number, user: SeedUser) => ({
    workspace_id: workspaceId,
    distinct_id: user.distinct_id,
    properties: JSON.stringify(user.properties ?? {}),
    channels: JSON.stringify(user.channels ?? {}),
    created_at: user.created_at ?? '2025-01-01T00:00:00Z',
    updated_at: user.created_at ?? '2025-01-01T00:00:00Z',
  });
  const otherUsers: SeedUser[] = [
    {
      distinct_id: 'other-secret-1',
      properties: { plan: 'pro' },
      channels: { $email: [entry('boss@secret.example')] },
    },
    { distinct_id: 'other-secret-2', properties: { plan: 'pro', age: 99 } },
    {
      distinct_id: 'alice',
      properties: { plan: 'stolen', age: 1 },
      channels: { $email: [entry('alice@secret.example')] },
    },
  ];
  await t.db
    .insertInto('users')
    .values([
      ...USERS.map((user) => row(ws.workspaceId, user)),
      ...otherUsers.map((user) => row(other.workspaceId, user)),
    ])
    .execute();
  const events = [
    ...EVENTS.map((event) => ({ ...event, workspace_id: ws.workspaceId })),
    {
      distinct_id: 'other-secret-1',
      event: 'purchase',
      properties: { amount: 5000 },
      created_at: '2025-06-01T00:00:00Z',
      workspace_id: other.workspaceId,
    },
    {
      distinct_id: 'alice',
      event: 'stolen',
      properties: {},
      created_at: '2025-06-01T00:00:00Z',
      workspace_id: other.workspaceId,
    },
  ];
  await t.db
    .insertInto('events')
    .values(
      events.map((event, i) => ({ ...event, properties: JSON.stringify(event.properties), insert_id: `seed-${i}` })),
    )
    .execute();
  return { ws, other };
}

export function dryRun(t: TestApp, ws: WorkspaceFixture, query: unknown) {
  return t.app.inject({ method: 'POST', url: '/v1/subscriber_list/~/dry_run/', headers: ws.base, payload: { query } });
}

/** Seeds the two workspaces once for the whole file. */
export function useSegmentWorkspaces(t: () => TestApp): () => SegmentSeed {
  let seed: SegmentSeed | undefined;
  beforeAll(async () => {
    seed = await seedSegmentWorkspaces(t());
  });
  return () => {
    if (!seed) throw new Error('segment workspaces not seeded yet');
    return seed;
  };
}
