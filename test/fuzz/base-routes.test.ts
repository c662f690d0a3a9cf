import { defineRouteFuzz } from '../support/fuzz-suite.js';

// Every route of the base surface and the public health routes registered when this file runs.
await defineRouteFuzz('fuzz-base', 'fuzzing every base route', (route) => route.surface !== 'management');
