import { defineRouteFuzz } from '../support/fuzz-suite.js';

// Every other route of the base surface and the public routes registered when this file runs
// (read from the OpenAPI documents); base-routes-2 takes the rest. Two files run in parallel.
await defineRouteFuzz(
  'fuzz-base-1',
  'fuzzing the base routes (1 of 2)',
  (route) => route.surface !== 'management' && route.surface !== 'inbox',
  {
    index: 0,
    count: 2,
  },
);
