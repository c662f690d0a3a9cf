import type { FastifyInstance } from 'fastify';

/**
 * A strict reader of the Prometheus text exposition format 0.0.4: every line a HELP, a TYPE or a sample of a
 * declared family, names and label values as the format defines them, values as floats; a histogram's buckets
 * cumulative and its `+Inf` bucket equal to its count. A scrape that breaks any of these throws.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
export interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(?:,|$)/;

function parseValue(raw: string, line: string) {
  // As Prometheus reads them (Go's ParseFloat): NaN and Inf in any case (prom-client writes `Nan`).
  if (/^nan$/i.test(raw)) return NaN;
  if (/^[+-]?inf(inity)?$/i.test(raw)) return raw.startsWith('-') ? -Infinity : Infinity;
  const value = Number(raw);
  if (raw === '' || Number.isNaN(value)) throw new Error(`not a sample value: ${line}`);
  return value;
}

function parseLabels(raw: string | undefined, line: string) {
  const labels: Record<string, string> = {};
  let rest = raw ?? '';
  while (rest.length > 0) {
    const match = LABEL.exec(rest);
    if (!match) throw new Error(`malformed labels: ${line}`);
    if (match[1]! in labels) throw new Error(`label ${match[1]} twice: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(match[0].length);
  }
  return labels;
}

export function parsePrometheusText(text: string): Family[] {
  const families = new Map<string, Family>();
  const familyOf = (sampleName: string) => {
    const exact = families.get(sampleName);
    if (exact) return exact;
    const base = sampleName.replace(/_(bucket|sum|count)$/, '');
    const family = families.get(base);
    return family && (family.type === 'histogram' || family.type === 'summary') ? family : undefined;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (!new RegExp(`^${NAME}$`).test(name)) throw new Error(`bad metric name: ${line}`);
      const family = families.get(name) ?? { name, help: '', type: 'untyped' as Family['type'], samples: [] };
      families.set(name, family);
      if (kind === 'HELP') family.help = rest;
      else if (['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest))
        family.type = rest as Family['type'];
      else throw new Error(`bad type: ${line}`);
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const family = familyOf(match[1]!);
    if (!family) throw new Error(`sample of an undeclared family: ${line}`);
    family.samples.push({ name: match[1]!, labels: parseLabels(match[2], line), value: parseValue(match[3]!, line) });
  }
  for (const family of families.values()) {
    if (family.type !== 'histogram') continue;
    const series = new Map<string, Sample[]>();
    for (const sample of family.samples.filter((s) => s.name.endsWith('_bucket'))) {
      const { le: _le, ...rest } = sample.labels;
      const key = JSON.stringify(rest);
      series.set(key, [...(series.get(key) ?? []), sample]);
    }
    for (const [key, buckets] of series) {
      const values = buckets.map((b) => b.value);
      if (values.some((v, i) => i > 0 && v < values[i - 1]!))
        throw new Error(`${family.name}${key}: buckets not cumulative`);
      const count = family.samples.find(
        (s) => s.name === `${family.name}_count` && JSON.stringify(s.labels) === key,
      )?.value;
      if (buckets.at(-1)?.labels.le !== '+Inf' || values.at(-1) !== count)
        throw new Error(`${family.name}${key}: +Inf bucket is not the count`);
    }
  }
  return [...families.values()];
}

/** One scrape of `GET /metrics`, parsed, with readers for a series' value. */
export async function scrapeMetrics(app: FastifyInstance, token?: string) {
  const response = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (response.statusCode !== 200) throw new Error(`scrape failed: ${response.statusCode} ${response.body}`);
  const families = parsePrometheusText(response.body);
  const family = (name: string) => families.find((f) => f.name === name);
  const find = (sampleName: string, familyName: string, labels: Record<string, string>) =>
    family(familyName)?.samples.find(
      (s) => s.name === sampleName && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
    )?.value ?? 0;
  return {
    contentType: String(response.headers['content-type']),
    families,
    family,
    /** A counter's or gauge's value for these labels (0 when the series is absent). */
    value: (name: string, labels: Record<string, string> = {}) => find(name, name, labels),
    /** A histogram's observation count for these labels (0 when absent). */
    count: (name: string, labels: Record<string, string> = {}) => find(`${name}_count`, name, labels),
  };
}
