import type { Sizes } from './options.js';
import {
  combine,
  messageOf,
  routeMissing,
  runLoad,
  send,
  type LoadFigures,
  type NextRequest,
  type RequestSpec,
} from './load.js';
import { cpuBetween, cpuMs, type RssSampler, type Server } from './processes.js';
import type { ApiContext, SeedOutcome } from './seed-api.js';
import type { EngineFigures } from './scenarios-engine.js';

export interface Series {
  label: string;
  server: 'Herald' | 'baseline';
  figures: LoadFigures;
}

export interface ScenarioResult {
  id: string;
  title: string;
  connections: number;
  status: 'measured' | 'unavailable' | 'failed';
  reason?: string;
  notes?: string[];
  series: Series[];
  /** Scenarios 1 and 6: Herald ÷ baseline req/s of each interleaved round; the headline is their median. */
  roundRatios?: number[];
  /** Engine scenarios (8–12): figures per delivery rather than per request (bench/scenarios-engine.ts). */
  engine?: EngineFigures[];
}

export interface ScenarioContext {
  herald: Server;
  baseline: Server;
  sampler: RssSampler;
  main: ApiContext;
  scale: ApiContext;
  /** The main workspace's default key/secret pair, for the signed scheme. */
  pair: { key: string; secret: string };
  sizes: Sizes;
  seeds: SeedOutcome[];
  log: (line: string) => void;
  /** Snapshot of the database backends' CPU (PostgreSQL engine only). */
  databaseCpu?: () => Promise<Map<number, number>>;
}

/** Cycles through prepared requests: every run of the same list sends the same sequence. */
export function cycle(requests: RequestSpec[]): NextRequest {
  let index = 0;
  return () => requests[index++ % requests.length] as RequestSpec;
}

/** Warm-up (unless told), then one measured run; the Herald process's RSS is sampled through the measured part. */
export async function measure(
  ctx: ScenarioContext,
  server: Server,
  connections: number,
  makeNext: () => NextRequest,
  run: { warmup?: boolean; seconds?: number } = {},
): Promise<LoadFigures> {
  if (run.warmup !== false && ctx.sizes.warmup > 0)
    await runLoad({ url: server.url, connections, duration: ctx.sizes.warmup, next: makeNext() });
  ctx.sampler.reset();
  const cpuBefore = cpuMs(server.pid);
  const dbBefore = await ctx.databaseCpu?.();
  const figures = await runLoad({
    url: server.url,
    connections,
    duration: run.seconds ?? ctx.sizes.duration,
    next: makeNext(),
  });
  const perRequest = (ms: number) => (ms * 1000) / Math.max(1, figures.requests);
  const cpuUsPerRequest = perRequest(cpuMs(server.pid) - cpuBefore);
  const dbAfter = dbBefore && (await ctx.databaseCpu?.());
  return {
    ...figures,
    cpuUsPerRequest,
    ...(dbBefore && dbAfter ? { dbCpuUsPerRequest: perRequest(cpuBetween(dbBefore, dbAfter)) } : {}),
    ...(server === ctx.herald ? { peakRssMb: ctx.sampler.peak() } : {}),
  };
}

export { combine };

export type ProbeVerdict = { ok: true } | { ok: false; status: 'unavailable' | 'failed'; reason: string };

/** One request before the load: is the route there, and does it answer 2xx? */
export async function probe(server: Server, spec: RequestSpec, what: string): Promise<ProbeVerdict> {
  const result = await send(server.url, spec);
  if (routeMissing(result))
    return { ok: false, status: 'unavailable', reason: `${what}: ${result.status} ${messageOf(result)}` };
  if (result.status < 200 || result.status >= 300)
    return { ok: false, status: 'failed', reason: `${what} answered ${result.status}: ${messageOf(result)}` };
  return { ok: true };
}

/** A scenario that could not run: why, in the shape the report prints. */
export const notRun = (
  base: Pick<ScenarioResult, 'id' | 'title' | 'connections'>,
  verdict: Exclude<ProbeVerdict, { ok: true }>,
): ScenarioResult => ({
  ...base,
  status: verdict.status,
  reason: verdict.reason,
  series: [],
});

/** The seeding step a scenario depends on, when it was not available or fell short. */
export function missingSeed(ctx: ScenarioContext, what: RegExp): ProbeVerdict {
  const outcome = ctx.seeds.find((seed) => what.test(seed.what));
  if (!outcome) return { ok: true };
  if (!outcome.available)
    return { ok: false, status: 'unavailable', reason: `seeding ${outcome.what}: ${outcome.note ?? 'route missing'}` };
  if (outcome.reached === 0)
    return { ok: false, status: 'failed', reason: `seeding ${outcome.what} failed: ${outcome.note ?? ''}` };
  return { ok: true };
}
