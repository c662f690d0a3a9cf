/**
 * Time from `npm start` to the first 200 from `/readyz`, on embedded storage with a built tree
 * (issue 32, point 12). Each run starts `npm start` as a user would (its own process group), polls
 * /readyz every 20 ms, and at the first 200 reads the CPU time the whole process group has used so
 * far (/proc: user + system of every live process and of the children each has reaped, so tsc's
 * time is counted when `prestart` runs it). Then SIGTERM, and the next run. The first start creates
 * and migrates the data folder and is reported apart; the median is over the runs after it.
 *
 *   npx tsx bench/start-to-ready.ts [runs=7]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './processes.js';

const TICKS_PER_SECOND = 100;

/** CPU seconds used so far by the processes of one group (live ones, and the children they reaped). */
function groupCpuSeconds(pgid: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the command name (which may hold spaces): state is field 3, pgrp 5, utime 14 … cstime 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid) continue;
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return ticks / TICKS_PER_SECOND;
}

async function startOnce(dataDir: string) {
  const port = await freePort();
  const began = performance.now();
  const child = spawn('npm', ['start'], {
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      DATABASE_URL: '',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
  });
  const pgid = child.pid!;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (performance.now() - began > 180_000) throw new Error('not ready after 180 s');
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) return { wallSeconds: (performance.now() - began) / 1000, cpuSeconds: groupCpuSeconds(pgid) };
      await sleep(20);
    }
  } finally {
    process.kill(-pgid, 'SIGTERM');
    await exited;
    await sleep(200);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const runs = Number(process.argv[2] ?? 7);
const dataDir = mkdtempSync(join(tmpdir(), 'herald-start-'));
try {
  const first = await startOnce(dataDir);
  console.log(
    `first start (empty data folder): ${first.wallSeconds.toFixed(2)} s wall, ${first.cpuSeconds.toFixed(2)} s CPU`,
  );
  const results = [];
  for (let run = 1; run <= runs; run++) {
    const result = await startOnce(dataDir);
    results.push(result);
    console.log(`run ${run}: ${result.wallSeconds.toFixed(2)} s wall, ${result.cpuSeconds.toFixed(2)} s CPU`);
  }
  const walls = results.map((result) => result.wallSeconds);
  console.log(
    `median of ${runs}: ${median(walls).toFixed(2)} s wall (min ${Math.min(...walls).toFixed(2)}, max ` +
      `${Math.max(...walls).toFixed(2)}), ${median(results.map((result) => result.cpuSeconds)).toFixed(2)} s CPU; ` +
      `load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
