import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the tests leave their figures; `npm run reliability:report` renders them into RELIABILITY.md. */
export const FIGURES_DIR = join(process.cwd(), 'reports', 'reliability');

export type Figures = Record<string, number | string | boolean>;

/** Records what one guarantee's test measured (cases tried, requests, faults, writes acknowledged/found). */
export function recordFigures(id: string, figures: Figures) {
  mkdirSync(FIGURES_DIR, { recursive: true });
  const engine = process.env.DATABASE_URL ? 'postgres' : 'embedded';
  const record = { id, engine, recorded_at: new Date().toISOString(), figures };
  writeFileSync(join(FIGURES_DIR, `${id}.${engine}.json`), `${JSON.stringify(record, null, 2)}\n`);
}
