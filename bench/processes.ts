import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Server {
  name: string;
  pid: number;
  url: string;
  child: ChildProcess;
  logFile: string;
}

/** A port the kernel just handed out on 127.0.0.1 (free the moment we close it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Starts `node <args>` as its own process (the pid we sample is the server's, not a wrapper's),
 * output to a log file, and waits until `readyPath` answers 200.
 */
export async function startServer(input: {
  name: string;
  nodeArgs: string[];
  env: Record<string, string | undefined>;
  logFile: string;
  readyPath: string;
}): Promise<Server> {
  const port = await freePort();
  const log = openSync(input.logFile, 'a');
  const env = { ...input.env, PORT: String(port), HOST: '127.0.0.1' };
  const child = spawn(process.execPath, input.nodeArgs, { env: env as NodeJS.ProcessEnv, stdio: ['ignore', log, log] });
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const response = await fetch(`${url}${input.readyPath}`);
      if (response.ok) return { name: input.name, pid: child.pid as number, url, child, logFile: input.logFile };
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  child.kill('SIGKILL');
  const tail = readFileSync(input.logFile, 'utf8').split('\n').slice(-20).join('\n');
  throw new Error(`${input.name} did not become ready (exit code ${child.exitCode}); last log lines:\n${tail}`);
}

/**
 * Starts `node <args>` as a process without an HTTP port (a Herald worker) and waits until its log
 * has a line containing `readyText`.
 */
export async function startBackground(input: {
  name: string;
  nodeArgs: string[];
  env: Record<string, string | undefined>;
  logFile: string;
  readyText: string;
}): Promise<Server> {
  const log = openSync(input.logFile, 'a');
  // A worker's health port is not the harness's: any free one (another bench's worker may hold the default 3000).
  const child = spawn(process.execPath, input.nodeArgs, {
    env: { ...input.env, PORT: '0' } as NodeJS.ProcessEnv,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (readFileSync(input.logFile, 'utf8').includes(input.readyText))
      return { name: input.name, pid: child.pid as number, url: '', child, logFile: input.logFile };
    await sleep(100);
  }
  child.kill('SIGKILL');
  const tail = readFileSync(input.logFile, 'utf8').split('\n').slice(-20).join('\n');
  throw new Error(`${input.name} did not start (exit code ${child.exitCode}); last log lines:\n${tail}`);
}

/** SIGTERM (graceful shutdown; lets --cpu-prof write its profile), SIGKILL after 15 s. */
export async function stopServer(server: Server) {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** kB figures of /proc/<pid>/status, in MB. */
function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU time (user + system) a process has used so far, in ms; /proc/<pid>/stat counts in clock ticks (100 Hz). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * CPU time used so far by the PostgreSQL backends serving one database (same machine only),
 * keyed by backend pid: the database's share of a request's cost.
 */
export async function databaseCpuMs(
  query: (text: string) => Promise<{ rows: { pid: number }[] }>,
): Promise<Map<number, number>> {
  const { rows } = await query(
    'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
  );
  return new Map(rows.map(({ pid }) => [pid, cpuMs(pid)]));
}

/** CPU ms the backends used between two snapshots (backends that appeared in between count whole). */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** Samples a process's resident memory every 100 ms; `peak()` is the largest sample since `reset()`. */
export class RssSampler {
  #peak = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(readonly pid: number) {
    this.#timer = setInterval(() => this.sample(), 100);
    this.#timer.unref();
    this.sample();
  }

  sample() {
    const rss = statusMb(this.pid, 'VmRSS');
    if (rss > this.#peak) this.#peak = rss;
  }

  reset() {
    this.#peak = 0;
    this.sample();
  }

  peak() {
    this.sample();
    return this.#peak;
  }

  /** The kernel's own high-water mark for the whole life of the process (covers what sampling misses). */
  highWaterMark() {
    return statusMb(this.pid, 'VmHWM');
  }

  stop() {
    clearInterval(this.#timer);
  }
}
