import type { LoadFigures } from './load.js';
import type { ScenarioResult } from './measure.js';

export interface RunInfo {
  date: string;
  mode: 'full' | 'quick';
  engine: string;
  commit: string;
  logLevel: string;
  machine: { cpus: string; memory: string; os: string; node: string; postgres: string };
  loadAverage: { start: number[]; end: number[] };
  seeding: { what: string; target: number; reached: number; available: boolean; seconds?: number; note?: string }[];
  /** The kernel's high-water mark of Herald's resident memory over the whole run, MB. */
  heraldPeakRssMb: number;
  durationSeconds: number;
}

export interface TargetCheck {
  scenario: string;
  target: string;
  measured: string;
  /** null: not measured in this run. */
  pass: boolean | null;
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const int = (value: number) => Math.round(value).toLocaleString('en-US');

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

const find = (results: ScenarioResult[], id: string) => results.find((r) => r.id === id);
const herald = (result: ScenarioResult | undefined, index = 0) =>
  result?.series.filter((s) => s.server === 'Herald')[index]?.figures;
const baselineOf = (result: ScenarioResult | undefined) => result?.series.find((s) => s.server === 'baseline')?.figures;
const why = (result: ScenarioResult | undefined) =>
  result ? `not measured: ${result.reason ?? result.status}` : 'not run';

/** Herald ÷ baseline in req/s, for scenarios 1 and 6. */
export const ratioOf = (result: ScenarioResult | undefined) => {
  if (result?.roundRatios?.length) return median(result.roundRatios);
  const h = herald(result);
  const b = baselineOf(result);
  return h && b && b.requestsPerSec > 0 ? h.requestsPerSec / b.requestsPerSec : undefined;
};

export function checkTargets(results: ScenarioResult[], peakRssMb: number, embedded: boolean): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const [id, minimum] of [
    ['1', 0.75],
    ['6', 0.7],
  ] as const) {
    const ratio = ratioOf(find(results, id));
    checks.push({
      scenario: id,
      target: `req/s ≥ ${minimum} × baseline`,
      measured: ratio === undefined ? why(find(results, id)) : `${fixed(ratio, 2)} ×`,
      pass: ratio === undefined ? null : ratio >= minimum,
    });
  }
  for (const id of ['2', '3']) {
    const f = herald(find(results, id));
    checks.push({
      scenario: id,
      target: 'p99 < 150 ms at 10 connections, zero non-2xx',
      measured: f
        ? `p99 ${fixed(f.latency.p99)} ms, ${f.non2xx + f.errors + f.timeouts} non-2xx/errors`
        : why(find(results, id)),
      pass: f ? f.latency.p99 < 150 && f.non2xx + f.errors + f.timeouts === 0 : null,
    });
  }
  const selective = find(results, '4')?.series.find((s) => s.label.startsWith('selective'))?.figures;
  checks.push({
    scenario: '4',
    target: 'p50 < 100 ms, selective filter',
    measured: selective ? `p50 ${fixed(selective.latency.p50)} ms` : why(find(results, '4')),
    pass: selective ? selective.latency.p50 < 100 : null,
  });
  const empty = herald(find(results, '7'), 0);
  const large = herald(find(results, '7'), 1);
  const scaling = empty && large && empty.latency.mean > 0 ? large.latency.mean / empty.latency.mean : undefined;
  checks.push({
    scenario: '7',
    target: 'large ÷ empty < 1.5',
    measured: scaling === undefined ? why(find(results, '7')) : `${fixed(scaling, 2)}`,
    pass: scaling === undefined ? null : scaling < 1.5,
  });
  checks.push(...engineChecks(results, embedded));
  checks.push(
    embedded
      ? {
          scenario: 'all',
          target: 'Herald peak RSS < 250 MB (PostgreSQL engine)',
          measured: `${fixed(peakRssMb)} MB, PGlite inside the process`,
          pass: null,
        }
      : {
          scenario: 'all',
          target: 'Herald peak RSS < 250 MB',
          measured: `${fixed(peakRssMb)} MB`,
          pass: Number.isFinite(peakRssMb) ? peakRssMb < 250 : null,
        },
  );
  return checks;
}

const engineOf = (result: ScenarioResult | undefined, index = 0) =>
  result?.status === 'measured' ? result.engine?.[index] : undefined;

/** The engine targets of issue #19 (PostgreSQL, API + one worker). */
function engineChecks(results: ScenarioResult[], embedded: boolean): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const eight = find(results, '8');
  const accept = herald(eight);
  checks.push({
    scenario: '8',
    target: 'trigger accept ≥ 1,500 req/s, p99 < 50 ms (c=50)',
    measured: accept
      ? `${int(accept.requestsPerSec)} req/s, p99 ${fixed(accept.latency.p99)} ms, ${accept.non2xx + accept.errors + accept.timeouts} non-2xx/errors`
      : why(eight),
    pass: accept ? accept.requestsPerSec >= 1500 && accept.latency.p99 < 50 && accept.non2xx === 0 : null,
  });
  const nine = engineOf(find(results, '9'));
  checks.push({
    scenario: '9',
    target: 'fan-out to the inbox: last message ≤ 30 s after the 202 (≥ 3,300 deliveries/s)',
    measured: nine
      ? `${fixed(nine.seconds ?? NaN)} s, ${int(nine.perSecond ?? NaN)} deliveries/s`
      : why(find(results, '9')),
    pass: nine?.perSecond === undefined ? null : nine.perSecond >= 3300,
  });
  const eleven = engineOf(find(results, '11'));
  checks.push({
    scenario: '11',
    target: 'trigger → inbox, idle: p50 < 50 ms, p99 < 200 ms',
    measured: eleven
      ? `p50 ${fixed(eleven.p50 ?? NaN, 0)} ms, p99 ${fixed(eleven.p99 ?? NaN, 0)} ms`
      : why(find(results, '11')),
    pass: eleven?.p50 === undefined ? null : eleven.p50 < 50 && (eleven.p99 ?? Infinity) < 200,
  });
  const twelve = engineOf(find(results, '12'));
  const ratio = twelve?.perSecond && nine?.perSecond ? twelve.perSecond / nine.perSecond : undefined;
  checks.push({
    scenario: '12',
    target: 'a second worker: ≥ 1.6 × deliveries/s',
    measured: ratio === undefined ? why(find(results, '12')) : `${fixed(ratio, 2)} ×`,
    pass: ratio === undefined ? null : ratio >= 1.6,
  });
  const thirteen = find(results, '13');
  const [oneWorker, twoWorkers] = [engineOf(thirteen, 0), engineOf(thirteen, 1)];
  const providerRatio =
    oneWorker?.perSecond && twoWorkers?.perSecond ? twoWorkers.perSecond / oneWorker.perSecond : undefined;
  checks.push({
    scenario: '13',
    target: 'a second worker, deliveries waiting on the provider (100 ms): ≥ 1.6 × deliveries/s',
    measured:
      providerRatio === undefined
        ? why(thirteen)
        : `${fixed(providerRatio, 2)} × (${int(oneWorker!.perSecond!)} → ${int(twoWorkers!.perSecond!)} deliveries/s)`,
    pass: providerRatio === undefined ? null : providerRatio >= 1.6,
  });
  const fourteen = find(results, '14');
  const held =
    fourteen?.status === 'measured' ? fourteen.notes?.find((n) => n.startsWith('highest offered')) : undefined;
  const heldRate = held ? Number(/([\d,]+) triggers\/s/.exec(held)?.[1]?.replace(/,/g, '')) : undefined;
  checks.push({
    scenario: '14',
    target: 'sustained end to end: ≥ 4,000 triggers/s offered with a flat backlog (API + one worker)',
    measured: fourteen?.status === 'measured' ? (held ?? fourteen.notes?.[0] ?? '–') : why(fourteen),
    pass: fourteen?.status === 'measured' ? (heldRate ?? 0) >= 4000 : null,
  });
  const peaks = results.flatMap((r) => r.engine ?? []);
  const api = Math.max(0, ...peaks.map((f) => f.apiPeakRssMb ?? 0));
  const worker = Math.max(0, ...peaks.map((f) => f.workerPeakRssMb ?? 0));
  if (!embedded && peaks.length > 0)
    checks.push({
      scenario: '8–14',
      target: 'peak RSS of the API and of a worker < 250 MB each',
      measured: `API ${fixed(api)} MB, worker ${fixed(worker)} MB`,
      pass: api < 250 && worker < 250,
    });
  return checks;
}

function engineRows(results: ScenarioResult[]): string[] {
  const rows = results.flatMap((r) => (r.engine ?? []).map((f) => ({ id: r.id, title: r.title, f })));
  if (rows.length === 0) return [];
  const optional = (value: number | undefined, digits = 0) => (value === undefined ? '–' : fixed(value, digits));
  const lines = [
    '### Engine',
    '',
    '"msgs" is the messages written (one per recipient and channel, refusals included); "/s" deliveries per second from the 202 to the last ' +
      'message settled (scenario 8: triggers accepted per second). CPU per message (µs): the API process, the worker process(es) and the ' +
      'PostgreSQL backends, over the whole run: what a delivery costs, whatever else the machine was doing.',
    '',
    '| # | scenario | what | msgs | s | /s | p50 ms | p99 ms | CPU µs/msg: API | workers | DB | API RSS | worker RSS | notes |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const { id, title, f } of rows)
    lines.push(
      `| ${id} | ${title} | ${f.what} | ${f.messages === undefined ? '–' : int(f.messages)} | ${optional(f.seconds, 1)} | ${f.perSecond === undefined ? '–' : int(f.perSecond)} | ${optional(f.p50)} | ${optional(f.p99)} | ${optional(f.cpuUsPerMessage?.api)} | ${optional(f.cpuUsPerMessage?.workers)} | ${optional(f.cpuUsPerMessage?.database)} | ${optional(f.apiPeakRssMb)} | ${optional(f.workerPeakRssMb)} | ${f.note ?? ''} |`,
    );
  lines.push('');
  return lines;
}

const verdict = (pass: boolean | null) => (pass === null ? '–' : pass ? 'pass' : '**FAIL**');

function figuresRow(result: ScenarioResult, label: string, connections: number, f: LoadFigures) {
  const bad = f.non2xx + f.errors + f.timeouts;
  const optional = (value: number | undefined, digits: number) => (value === undefined ? '–' : fixed(value, digits));
  return `| ${result.id} | ${label} | ${connections} | ${int(f.requestsPerSec)} | ${fixed(f.latency.p50)} | ${fixed(f.latency.p97_5)} | ${fixed(f.latency.p99)} | ${bad === 0 ? '0' : `**${bad}**`} | ${optional(f.cpuUsPerRequest, 0)} | ${optional(f.dbCpuUsPerRequest, 0)} | ${optional(f.peakRssMb, 0)} |`;
}

export function renderReport(info: RunInfo, results: ScenarioResult[], checks: TargetCheck[]): string {
  const lines: string[] = [];
  const m = info.machine;
  lines.push(
    `Run ${info.date}, ${info.mode} mode, ${info.engine}, commit ${info.commit}, Herald LOG_LEVEL=${info.logLevel}, ${int(info.durationSeconds)} s in all.`,
    '',
    `Machine: ${m.cpus}; ${m.memory} RAM; ${m.os}; Node ${m.node}; ${m.postgres}. ` +
      `Load average (1/5/15 min) at start ${info.loadAverage.start.map((v) => fixed(v, 2)).join(' / ')}, at end ${info.loadAverage.end.map((v) => fixed(v, 2)).join(' / ')}.`,
    '',
    '### Headline: Herald ÷ baseline (req/s)',
    '',
    '| scenario | Herald req/s | baseline req/s | ratio | target |',
    '|---|---:|---:|---:|---|',
  );
  for (const [id, name, minimum] of [
    ['1', 'GET user, Bearer', 0.75],
    ['6', 'GET user, signed workspace key', 0.7],
  ] as const) {
    const result = find(results, id);
    const h = herald(result);
    const b = baselineOf(result);
    const ratio = ratioOf(result);
    lines.push(
      h && b && ratio !== undefined
        ? `| ${id}. ${name} | ${int(h.requestsPerSec)} | ${int(b.requestsPerSec)} | **${fixed(ratio, 2)}** (rounds: ${(result?.roundRatios ?? []).map((r) => fixed(r, 2)).join(', ')}) | ≥ ${minimum}: ${verdict(ratio >= minimum)} |`
        : `| ${id}. ${name} | – | – | – | ${why(result)} |`,
    );
  }
  lines.push('', '### Targets', '', '| scenario | target | measured | result |', '|---|---|---|---|');
  for (const check of checks)
    lines.push(`| ${check.scenario} | ${check.target} | ${check.measured} | ${verdict(check.pass)} |`);
  lines.push(
    '',
    '### All figures',
    '',
    'Latency in ms; "bad" counts non-2xx responses, socket errors and timeouts. "CPU/req" is the CPU time per request (µs, from /proc/<pid>/stat) ' +
      'of the server process, and of the PostgreSQL backends serving it ("DB CPU/req"): the cost of a request, much less sensitive to other load ' +
      'on the machine than req/s. Peak RSS is the Herald process during that run (sampled VmRSS, MB).',
    '',
    '| # | series | conn. | req/s | p50 | p97.5 | p99 | bad | CPU/req µs | DB CPU/req µs | peak RSS |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const result of results) {
    if (result.status !== 'measured') {
      lines.push(
        `| ${result.id} | ${result.title}: ${result.status === 'unavailable' ? 'not available in this build' : 'failed'} | ${result.connections} | | | | | | | | |`,
      );
      continue;
    }
    for (const series of result.series)
      lines.push(figuresRow(result, `${result.title}: ${series.label}`, result.connections, series.figures));
  }
  lines.push(
    '',
    `Herald's peak RSS over the whole run (kernel VmHWM, seeding included): ${fixed(info.heraldPeakRssMb)} MB.`,
    '',
  );
  lines.push(...engineRows(results));
  const skipped = results.filter((r) => r.status !== 'measured');
  if (skipped.length > 0) {
    lines.push('### Not measured in this run', '');
    for (const r of skipped)
      lines.push(
        `- ${r.id}. ${r.title}: ${r.status === 'unavailable' ? 'not available in this build' : 'failed'} (${r.reason})`,
      );
    lines.push('');
  }
  const noted = results.filter((r) => r.notes?.length);
  if (noted.length > 0) {
    lines.push('### Scenario notes', '');
    for (const r of noted) for (const note of r.notes ?? []) lines.push(`- ${r.id}: ${note}`);
    lines.push('');
  }
  lines.push('### Data set', '', '| what | target | reached | seconds | note |', '|---|---:|---:|---:|---|');
  for (const seed of info.seeding) {
    lines.push(
      `| ${seed.what} | ${int(seed.target)} | ${seed.available ? int(seed.reached) : 'not available in this build'} | ${seed.seconds === undefined ? '' : fixed(seed.seconds)} | ${seed.note ?? ''} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
