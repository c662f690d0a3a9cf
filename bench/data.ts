import { createHash, createHmac } from 'node:crypto';

/** The data set's names, shared by seeding and by the scenarios that address it. */
export const MAIN_WORKSPACE = 'bench';
/** Scenario 7 lives in its own workspace so its million subscribers do not skew the main data set. */
export const SCALE_WORKSPACE = 'bench-scale';

export const userId = (i: number) => `user-${i}`;
export const memberId = (i: number) => `member-${i}`;
export const TEAM_TYPE = 'teams';
export const teamId = (i: number) => `team-${i}`;
/** The main workspace's large object: every seeded user subscribes to it. */
export const ORGANIZATION = { type: 'organizations', id: 'acme' };
export const SCALE_OBJECTS = { type: 'projects', big: 'big', empty: (i: number) => `empty-${i}`, emptyCount: 200 };

/** Deterministic pseudo-random numbers (mulberry32): Herald and the baseline see the same id sequence. */
export function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const randomInts = (count: number, below: number, seed: number) => {
  const next = random(seed);
  return Array.from({ length: count }, () => Math.floor(next() * below));
};

/** `count` distinct integers below `below`, in random order. */
export function sample(next: () => number, count: number, below: number): number[] {
  const picked = new Set<number>();
  while (picked.size < Math.min(count, below)) picked.add(Math.floor(next() * below));
  return [...picked];
}

const category = (slug: string, name: string, defaultPreference: 'opt_in' | 'opt_out') => ({
  category: slug,
  name,
  description: `${name} notifications`,
  default_preference: defaultPreference,
  digest_schedule: null,
  properties: null,
});

/** The live preference category definition: ten categories over the three roots. */
export const PREFERENCE_DEFINITION = {
  root_categories: [
    { root_category: 'system', sections: [] },
    {
      root_category: 'transactional',
      sections: [
        {
          name: 'Account',
          categories: [
            category('security-alerts', 'Security alerts', 'opt_in'),
            category('billing', 'Billing', 'opt_in'),
            category('account-activity', 'Account activity', 'opt_in'),
          ],
        },
        {
          name: 'Orders',
          categories: [
            category('order-updates', 'Order updates', 'opt_in'),
            category('shipping-updates', 'Shipping updates', 'opt_in'),
          ],
        },
      ],
    },
    {
      root_category: 'promotional',
      sections: [
        {
          name: 'Marketing',
          categories: [
            category('newsletter', 'Newsletter', 'opt_out'),
            category('product-updates', 'Product updates', 'opt_in'),
            category('offers', 'Offers', 'opt_out'),
            category('events-and-webinars', 'Events and webinars', 'opt_out'),
            category('surveys', 'Surveys', 'opt_out'),
          ],
        },
      ],
    },
  ],
};

export const CATEGORY_SLUGS = PREFERENCE_DEFINITION.root_categories.flatMap((root) =>
  root.sections.flatMap((section) => section.categories.map((c) => c.category)),
);

/**
 * The signed workspace-key scheme of docs/spec/compat.md ("Authentication on the base surface", item 2):
 * base64(HMAC-SHA256(secret, METHOD \n md5hex(body) \n Content-Type \n Date \n path?query)).
 */
export function signRequest(
  pair: { key: string; secret: string },
  request: { method: string; path: string; body?: string; contentType?: string; date: string },
) {
  const bodyMd5 = request.body === undefined ? '' : createHash('md5').update(request.body, 'utf8').digest('hex');
  const stringToSign = [request.method, bodyMd5, request.contentType ?? '', request.date, request.path].join('\n');
  const signature = createHmac('sha256', pair.secret).update(stringToSign, 'utf8').digest('base64');
  return `${pair.key}:${signature}`;
}
