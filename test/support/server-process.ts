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

export async function startServer(env: NodeJS.ProcessEnv, startTimeoutMs = 60_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const logLines = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), startTimeoutMs);
    const check = () => {
      const listening = logLines().find(
        (line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening at http://127.0.0.1:'),
      );
      if (listening && output.includes('Herald: base API')) {
        clearTimeout(timer);
        resolve(Number(/:(\d+)$/.exec(listening.msg as string)![1]));
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening: ${output}`)));
  });
  return { child, port, output: () => output, logLines, exited };
}

export interface HttpOutcome {
  status: number | 'refused';
  body: unknown;
  error?: string;
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
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
        res.on('error', (error) => resolve({ status: 'refused', body: null, error: error.message }));
      },
    );
    req.on('error', (error) =>
      resolve({ status: 'refused', body: null, error: (error as NodeJS.ErrnoException).code ?? error.message }),
    );
    req.end(payload);
  });
}

/** A worker process (`HERALD_ROLE=worker`, as `herald worker` runs): no port; ready once it says so. */
export async function startWorkerProcess(env: NodeJS.ProcessEnv, startTimeoutMs = 60_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...env, HERALD_ROLE: 'worker' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    // A worker that never says it started is not left running.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker did not start: ${output}`));
    }, startTimeoutMs);
    const check = () => {
      if (output.includes('Herald worker started')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`worker exited with ${code} before starting: ${output}`)));
  });
  const logLines = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { child, port: 0, output: () => output, logLines, exited };
}
