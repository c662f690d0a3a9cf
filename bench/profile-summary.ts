/**
 * Summarises a V8 .cpuprofile (from `npm run bench -- --profile`): self time by package and by
 * function, so the cost of a request can be read without a browser.
 *   node dist/bench/profile-summary.js bench/results/profiles/<file>.cpuprofile [top]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node dist/bench/profile-summary.js <file.cpuprofile> [top]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const top = Number(topArg ?? 30);
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfTime = new Map<number, number>();
profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
// Idle time is the process waiting (on the database, on the network): leave it out of the shares.
const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
for (const id of idle) selfTime.delete(id);
const total = [...selfTime.values()].reduce((a, b) => a + b, 0);

/** node_modules/<package>, our own source, node internals, or V8 (GC, idle, program). */
function packageOf(url: string): string {
  if (!url) return '(v8: gc, idle, native)';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1] as string;
  if (url.startsWith('node:')) return 'node internals';
  const own = /\/dist\/(src|migrations)\/(.*)$/.exec(url);
  return own ? `herald ${own[2]}` : url;
}

const add = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value);
const packages = new Map<string, number>();
const functions = new Map<string, number>();
for (const [id, time] of selfTime) {
  const node = byId.get(id);
  if (!node) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  add(packages, packageOf(url), time);
  add(functions, `${functionName || '(anonymous)'} ${packageOf(url)}:${lineNumber + 1}`, time);
}

const print = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [name, time] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((100 * time) / total).toFixed(1).padStart(6)}%  ${name}\n`);
  }
};
process.stdout.write(`${(total / 1e6).toFixed(1)} s of CPU sampled (idle excluded)\n`);
print('self time by package', packages);
print('self time by function', functions);
