/**
 * How long `startHerald()` (herald/testing, docs/testing-your-notifications.md) takes: the first start
 * in a process (which migrates an in-memory database) apart, then the median of the starts after it,
 * each followed by `close()`. Wall time on a shared machine follows its load; the CPU time of this
 * process per start is the comparable figure.
 *
 *   npm run build && npx tsx bench/testing-start.ts [runs=9]
 */
import { performance } from 'node:perf_hooks';
import { startHerald } from 'herald/testing';

const runs = Number(process.argv[2] ?? 9);
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function once() {
  const wall = performance.now();
  const cpu = cpuMs();
  const herald = await startHerald();
  const figures = { wallMs: performance.now() - wall, cpuMs: cpuMs() - cpu };
  await herald.close();
  return figures;
}

const first = await once();
const later = [];
for (let i = 0; i < runs; i += 1) later.push(await once());
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
process.stdout.write(
  `first start: wall ${fmt(first.wallMs)}, CPU ${fmt(first.cpuMs)}\n` +
    `next ${runs}: wall median ${fmt(median(later.map((r) => r.wallMs)))} ` +
    `(${fmt(Math.min(...later.map((r) => r.wallMs)))}–${fmt(Math.max(...later.map((r) => r.wallMs)))}), ` +
    `CPU median ${fmt(median(later.map((r) => r.cpuMs)))}\n`,
);
