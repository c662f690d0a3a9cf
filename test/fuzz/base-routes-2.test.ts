import { defineRouteFuzz } from '../support/fuzz-suite.js';

// The other half of the base surface and public routes (see base-routes-1).
await defineRouteFuzz(
  'fuzz-base-2',
  'fuzzing the base routes (2 of 2)',
  (route) => route.surface !== 'management' && route.surface !== 'inbox',
  {
    index: 1,
    count: 2,
  },
);
