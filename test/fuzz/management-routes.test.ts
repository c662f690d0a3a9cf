import { defineRouteFuzz } from '../support/fuzz-suite.js';

// Every route of the management surface registered when this file runs (read from the OpenAPI document).
await defineRouteFuzz('fuzz-management', 'fuzzing every management route', (route) => route.surface === 'management');
