import autocannon from 'autocannon';

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Builds the next request; called once per request sent, so each can differ (ids, bodies, signatures). */
export type NextRequest = () => RequestSpec;

export interface LoadFigures {
  requestsPerSec: number;
  latency: { mean: number; p50: number; p97_5: number; p99: number; max: number };
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /**
   * CPU time the server process spent per request, µs (from /proc/<pid>/stat). Far less sensitive
   * to other work on the machine than req/s: the cost of a request, not the share of CPU it got.
   */
  cpuUsPerRequest?: number;
  /** The same for the PostgreSQL backends of the benchmark database (PostgreSQL engine only). */
  dbCpuUsPerRequest?: number;
  /** Largest resident set of the Herald process during the run, MB (sampled). */
  peakRssMb?: number;
}

export interface LoadInput {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  next: NextRequest;
}

/** One bounded autocannon run on 127.0.0.1; latencies in ms. */
export async function runLoad(input: LoadInput): Promise<LoadFigures> {
  const result = await autocannon({
    url: input.url,
    connections: input.connections,
    duration: input.duration,
    timeout: 10,
    requests: [{ setupRequest: (request) => ({ ...request, ...input.next() }) as autocannon.Request }],
  });
  return {
    requestsPerSec: result.requests.average,
    latency: {
      mean: result.latency.average,
      p50: result.latency.p50,
      p97_5: result.latency.p97_5,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** Averages the figures of interleaved rounds (counts add up, peaks take the largest). */
export function combine(runs: LoadFigures[]): LoadFigures {
  const mean = (pick: (f: LoadFigures) => number) => runs.reduce((sum, f) => sum + pick(f), 0) / runs.length;
  const sum = (pick: (f: LoadFigures) => number) => runs.reduce((total, f) => total + pick(f), 0);
  const peaks = runs.map((f) => f.peakRssMb).filter((v): v is number => v !== undefined);
  const average = (pick: (f: LoadFigures) => number | undefined) => {
    const values = runs.map(pick).filter((v): v is number => v !== undefined);
    return values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : undefined;
  };
  const cpu = average((f) => f.cpuUsPerRequest);
  const dbCpu = average((f) => f.dbCpuUsPerRequest);
  return {
    requestsPerSec: mean((f) => f.requestsPerSec),
    latency: {
      mean: mean((f) => f.latency.mean),
      p50: mean((f) => f.latency.p50),
      p97_5: mean((f) => f.latency.p97_5),
      p99: mean((f) => f.latency.p99),
      max: Math.max(...runs.map((f) => f.latency.max)),
    },
    requests: sum((f) => f.requests),
    non2xx: sum((f) => f.non2xx),
    errors: sum((f) => f.errors),
    timeouts: sum((f) => f.timeouts),
    ...(cpu === undefined ? {} : { cpuUsPerRequest: cpu }),
    ...(dbCpu === undefined ? {} : { dbCpuUsPerRequest: dbCpu }),
    ...(peaks.length > 0 ? { peakRssMb: Math.max(...peaks) } : {}),
  };
}

export interface ProbeResult {
  status: number;
  body: unknown;
}

/** One request outside the load, to see whether the route is there and answers as expected. */
export async function send(url: string, spec: RequestSpec): Promise<ProbeResult> {
  const response = await fetch(`${url}${spec.path}`, {
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body };
}

export const messageOf = (result: ProbeResult) => {
  const body = result.body as { message?: unknown } | null;
  return typeof body === 'object' && body && typeof body.message === 'string'
    ? body.message
    : JSON.stringify(result.body)?.slice(0, 200);
};

/** The route does not exist in this build: 405, or the catch-all 404 (not a 404 the route itself gave). */
export const routeMissing = (result: ProbeResult) =>
  result.status === 405 || (result.status === 404 && /^no route for /.test(messageOf(result) ?? ''));
