import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';

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
