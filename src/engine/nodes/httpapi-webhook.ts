import { fetchGuarded, HTTP_NODE_ANSWER_LIMIT, readAnswerWithin } from '../../channels/outbound.js';
import { readExpression, type Namespaces } from '../../domain/paths.js';
import type { NodeHandlerOf } from './types.js';

/**
 * `httpapi_webhook`: one HTTP call, made outside the run's transaction; a JSON answer is stored under
 * `output_key` (or merged at the data's root) for the steps after it. Values are JSONNET on the
 * platform; here (ours) a value is plain JSON or text, or a quoted string, or a path such as
 * `data.x` / `.x` / `$recipient.x` read from the run. A failed call fails the step, and the job is retried.
 * The URL goes through the outbound guard (src/channels/outbound.ts), as the trigger's data may shape it: a
 * destination the policy refuses is never called and fails the run (src/engine/runner.ts). Redirects are not
 * followed.
 */

const stringValue = (raw: unknown, namespaces: Namespaces): string => {
  if (typeof raw !== 'string') return raw === undefined ? '' : JSON.stringify(raw);
  const text = raw.trim();
  if (/^".*"$/.test(text)) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return text;
    }
  }
  if (text.startsWith('data.')) return String(readExpression(namespaces, text.slice(4)) ?? '');
  if (text.startsWith('.') || text.startsWith('$')) {
    const value = readExpression(namespaces, text);
    if (value !== undefined) return typeof value === 'string' ? value : JSON.stringify(value);
  }
  return text;
};

const pairs = (raw: unknown, namespaces: Namespaces): [string, string][] =>
  Array.isArray(raw)
    ? raw.flatMap((p) =>
        p && typeof p === 'object' && 'key' in p
          ? [
              [
                stringValue((p as { key: unknown }).key, namespaces),
                stringValue((p as { value: unknown }).value, namespaces),
              ] as [string, string],
            ]
          : [],
      )
    : [];

export const httpapiWebhook: NodeHandlerOf<'httpapi_webhook'> = async (context, config) => {
  const { namespaces } = context;
  const method = config.http_method ?? 'POST';
  const url = new URL(stringValue(config.url, namespaces));
  for (const [key, value] of pairs(config.query_params, namespaces)) url.searchParams.append(key, value);
  const headers = Object.fromEntries(pairs(config.headers, namespaces));
  const rawBody = config.body;
  let body: string | undefined;
  if (method !== 'GET' && rawBody !== undefined) {
    if (typeof rawBody === 'string') {
      try {
        body = JSON.stringify(JSON.parse(rawBody));
      } catch {
        body = stringValue(rawBody, namespaces);
      }
    } else body = JSON.stringify(rawBody);
    headers['content-type'] ??= String(config.body_content_type ?? 'application/json');
  }
  const outputKey = config.output_key;
  const timeoutMs = context.httpTimeoutMs;
  return {
    kind: 'call',
    perform: async () => {
      // A value filled from data may hold a line break, which fetch refuses with the value in its message:
      // refused here by name only, so that the data never reaches the log (issue 25).
      for (const [name, value] of Object.entries(headers))
        if (/[\r\n\0]/.test(value) || /[\r\n\0]/.test(name))
          throw new Error(
            `httpapi_webhook ${context.nodeRef}: header ${JSON.stringify(name.replace(/[\r\n\0]/g, ' '))} holds a line break`,
          );
      const response = await fetchGuarded(
        url.href,
        { method, headers, body, signal: AbortSignal.timeout(timeoutMs) },
        context.outbound,
      );
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`httpapi_webhook ${context.nodeRef}: ${url.origin} answered ${response.status}`);
      }
      const text = await readAnswerWithin(response, HTTP_NODE_ANSWER_LIMIT, url.origin);
      let output: unknown = text;
      try {
        output = JSON.parse(text);
      } catch {
        // a text answer is kept as text
      }
      if (typeof outputKey === 'string' && outputKey !== '') return { [outputKey]: output };
      return output && typeof output === 'object' && !Array.isArray(output) ? (output as Record<string, unknown>) : {};
    },
  };
};
