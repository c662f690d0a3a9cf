import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { ulid } from 'ulid';
import { expect } from 'vitest';
import { SecretBox } from '../../src/crypto/secret-box.js';
import { createDatabase } from '../../src/db/database.js';
import { bootstrapWorkspace } from '../../src/services/workspaces.js';
import { TEST_SECRET_KEY } from './app.js';
import type { PrivateDatabase } from './private-database.js';

/** The real server as production runs it (`node --import tsx src/main.ts`), with its output collected. */
export interface ServerProcess {
  child: ChildProcess;
  port: number;
  output: () => string;
  /** JSON log lines written so far. */
  logLines: () => Record<string, unknown>[];
  exited: Promise<number | null>;
}

/**
 * Collects a child's output. Its stdout arrives in chunks that need not end at a line's end (pino
 * writes asynchronously, many lines per write, and a busy reader gets part of one): only complete
 * lines are parsed, each once, and a line that is not JSON is kept as text rather than thrown on,
 * since a throw in a 'data' listener is an uncaught exception (docs/testing.md, "The 'Unhandled
 * Errors' run").
 */
export function collectOutput(child: ChildProcess) {
  let output = '';
  let partial = '';
  const lines: Record<string, unknown>[] = [];
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    output += chunk;
    const complete = (partial + chunk).split('\n');
    partial = complete.pop()!;
    for (const line of complete) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        lines.push({ unparsed: line });
      }
    }
  });
  child.stderr!.on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => resolve(code));
    // Spawning failed: there is no process to wait for.
    child.on('error', () => resolve(null));
  });
  return { output: () => output, logLines: () => [...lines], exited };
}

export async function startServer(env: NodeJS.ProcessEnv, startTimeoutMs = 60_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const { output, logLines, exited } = collectOutput(child);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output()}`)), startTimeoutMs);
    const check = () => {
      const listening = logLines().find(
        (line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening at http://127.0.0.1:'),
      );
      if (listening && output().includes('Herald: base API')) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(Number(/:(\d+)$/.exec(listening.msg as string)![1]));
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening: ${output()}`)));
  });
  return { child, port, output, logLines, exited };
}

export interface HttpOutcome {
  status: number | 'refused';
  body: unknown;
  error?: string;
}

function parseBody(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One request over its own connection (or the agent given), never throwing: a refused connection is an outcome. */
export function request(
  port: number,
  options: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: unknown;
    agent?: http.Agent | false;
  },
): Promise<HttpOutcome> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method,
        path: options.path,
        agent: options.agent ?? false,
        headers: {
          ...options.headers,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        // Parsed here, not thrown on: a throw in this listener would be an uncaught exception.
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parseBody(text) }));
        res.on('error', (error) => resolve({ status: 'refused', body: null, error: error.message }));
      },
    );
    req.on('error', (error) =>
      resolve({ status: 'refused', body: null, error: (error as NodeJS.ErrnoException).code ?? error.message }),
    );
    req.end(payload);
  });
}

/**
 * A worker process (`HERALD_ROLE=worker`, as `herald worker` runs); ready once it says so. It serves
 * its health and metrics on PORT: a port of its own (0, any free one) unless the test names one, so
 * several workers on one machine never contend for the default.
 */
export async function startWorkerProcess(env: NodeJS.ProcessEnv, startTimeoutMs = 60_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PORT: '0', ...env, HERALD_ROLE: 'worker' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { output, logLines, exited } = collectOutput(child);
  await new Promise<void>((resolve, reject) => {
    // A worker that never says it started is not left running.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker did not start: ${output()}`));
    }, startTimeoutMs);
    const check = () => {
      if (output().includes('Herald worker started')) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`worker exited with ${code} before starting: ${output()}`)));
  });
  return { child, port: 0, output, logLines, exited };
}

/** A workspace's credentials, as `bootstrapWorkspace` returns them and a first start prints them. */
export interface ProcessCredentials {
  service_token: string;
  api_key: string;
  workspace_key: string;
  workspace_secret: string;
}

/** The credentials a first start on embedded storage prints (its banner, outside the JSON log). */
function printedCredentials(output: string): ProcessCredentials {
  const read = (pattern: RegExp, what: string) => {
    const found = pattern.exec(output)?.[1];
    if (!found) throw new Error(`the first start printed no ${what}: ${output.slice(-2000)}`);
    return found;
  };
  return {
    service_token: read(/service token \(management\): (hst_\S+)/, 'service token'),
    api_key: read(/API key \(base\): +(hak_\S+)/, 'API key'),
    workspace_key: read(/workspace key \/ secret: +(\S+) \//, 'workspace key'),
    workspace_secret: read(/workspace key \/ secret: +\S+ \/ (\S+)/, 'workspace secret'),
  };
}

export interface HeraldProcesses {
  /** What every process starts with: the test's settings on the database of this run. */
  env: NodeJS.ProcessEnv;
  /**
   * The workspace's credentials: on PostgreSQL the workspace bootstrapped before any process started; on
   * embedded storage the one the first start created, read from that process's output.
   */
  credentials(firstStart: ServerProcess): ProcessCredentials;
}

/**
 * Herald as child processes on the test's private database (`createPrivateDatabase`), as an operator
 * runs it: on PostgreSQL with a workspace bootstrapped beforehand (a first start there prints no
 * credentials) and `postgres` added to the settings; on embedded storage on `dataDir`, where the first
 * start creates the workspace and prints its credentials. The caller's own DATABASE_URL and SECRET_KEY
 * never leak into the processes.
 */
export async function prepareHeraldProcesses(
  database: PrivateDatabase,
  options: { dataDir: string; slug: string; env: Record<string, string>; postgres?: Record<string, string> },
): Promise<HeraldProcesses> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: options.dataDir, PORT: '0', ...options.env };
  delete env.DATABASE_URL;
  delete env.SECRET_KEY;
  let bootstrapped: ProcessCredentials | undefined;
  if (database.url) {
    const { db } = createDatabase({ url: database.url });
    try {
      bootstrapped = await bootstrapWorkspace(db, new SecretBox(TEST_SECRET_KEY), {
        slug: `${options.slug}-${ulid().toLowerCase()}`,
        actor: null,
      });
    } finally {
      await db.destroy();
    }
    Object.assign(env, { DATABASE_URL: database.url, SECRET_KEY: TEST_SECRET_KEY, ...options.postgres });
  }
  return { env, credentials: (firstStart) => (bootstrapped ??= printedCredentials(firstStart.output())) };
}

export interface ProcessCallers {
  /** A base call with the API key, or a management one with the service token. */
  call(method: string, path: string, body?: unknown, management?: boolean): Promise<HttpOutcome>;
  /** A management call under the workspace: `/management/{version}/{workspace}{path}`. */
  management(method: string, path: string, body?: unknown, version?: string): Promise<HttpOutcome>;
  workspace: string;
}

/** Callers of a Herald process with the workspace's credentials; `port` is read at each call (a process may be restarted). */
export async function processCallers(port: () => number, credentials: ProcessCredentials): Promise<ProcessCallers> {
  const call = (method: string, path: string, body?: unknown, management = false) =>
    request(port(), {
      method,
      path,
      body,
      headers: {
        authorization: management ? `ServiceToken ${credentials.service_token}` : `Bearer ${credentials.api_key}`,
      },
    });
  const workspaces = await succeeded(
    'GET /management/v1/workspace/',
    call('GET', '/management/v1/workspace/', undefined, true),
  );
  const workspace = (workspaces as { results: { slug: string }[] }).results[0]!.slug;
  return {
    call,
    management: (method, path, body, version = 'v1') =>
      call(method, `/management/${version}/${workspace}${path}`, body, true),
    workspace,
  };
}

/** The body of a 2xx answer; anything else throws, naming the call. */
export async function succeeded(what: string, outcome: Promise<HttpOutcome>): Promise<Record<string, unknown>> {
  const result = await outcome;
  if (typeof result.status !== 'number' || result.status >= 300)
    throw new Error(`${what}: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body as Record<string, unknown>;
}

/**
 * Through a process's management API: a live inbox template `slug` (one variant greeting the recipient) and a
 * committed workflow `slug` of category order-updates that sends it. The real server renders with the template
 * store, so the workflow's template must exist and be live.
 */
export async function publishInboxWorkflow({ management }: Pick<ProcessCallers, 'management'>, slug: string) {
  const name = slug[0]!.toUpperCase() + slug.slice(1);
  expect(
    (await management('POST', `/template/${slug}/`, { name, enabled_channels: ['inbox'] }, 'v2')).status,
  ).toBeLessThan(300);
  const variant = { locale: 'en', content: { header: 'Hello', text: 'Hi {{$recipient.distinct_id}}' } };
  expect(
    (await management('POST', `/template/${slug}/channel/inbox/variant/default/`, variant, 'v2')).status,
  ).toBeLessThan(300);
  expect((await management('PATCH', `/template/${slug}/commit/`, {}, 'v2')).status).toBeLessThan(300);
  expect(
    (
      await management('POST', `/workflow/${slug}/`, {
        name: slug,
        category: 'order-updates',
        trigger_type: 'api',
        tree: { nodes: [{ name: 'inbox', node_type: 'send_inbox', template: slug }] },
      })
    ).status,
  ).toBeLessThan(300);
  expect((await management('PATCH', `/workflow/${slug}/commit/`)).status).toBe(202);
}
