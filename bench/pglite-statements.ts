import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PGlite } from '@electric-sql/pglite';

/**
 * A preload for a Herald process on embedded storage (`node --import ./dist/bench/pglite-statements.js`):
 * counts the statements PGlite runs (whoever sends them: Kysely, pg-boss; see statementTexts), the transactions (BEGIN), and the process time spent inside PGlite's protocol calls,
 * writing them to PGLITE_STATEMENTS_FILE every 200 ms, with the statement texts by count when
 * PGLITE_STATEMENTS_TEXTS=1. With PGLITE_PROFILE_FILE set, SIGUSR2 starts a CPU profile of the process and
 * the next SIGUSR2 writes it there (the load window only, not the start or the seeding). Measurement only:
 * not part of Herald.
 */

const file = process.env.PGLITE_STATEMENTS_FILE;
const keepTexts = process.env.PGLITE_STATEMENTS_TEXTS === '1';
const counts = {
  statements: 0,
  transactions: 0,
  protocolMs: 0,
  texts: {} as Record<string, number>,
  /** The process's CPU milliseconds in the protocol calls by their statements' texts (an exchange of several: the first's). */
  textMs: {} as Record<string, number>,
};
const decoder = new TextDecoder();

const named = new Map<string, string>();
const cString = (message: Uint8Array, at: number) => {
  const end = message.indexOf(0, at);
  return { text: decoder.decode(message.subarray(at, end)), next: end + 1 };
};

/**
 * The statements a protocol message runs: each simple Query, each Parse of an unnamed statement
 * (`PGlite.query()` sends Parse … Sync as separate calls), and each Bind of a named one
 * (src/db/pglite-statements.ts parses a text once under a name, then sends Bind … Sync).
 */
function statementTexts(message: Uint8Array): string[] {
  const texts: string[] = [];
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  for (let at = 0; at + 5 <= message.length; at += 1 + view.getInt32(at + 1)) {
    const kind = message[at];
    if (kind === 0x51 /* Q */) texts.push(cString(message, at + 5).text);
    else if (kind === 0x50 /* P */) {
      const name = cString(message, at + 5);
      const text = cString(message, name.next).text;
      if (name.text) named.set(name.text, text);
      else texts.push(text);
    } else if (kind === 0x42 /* B */) {
      const statement = cString(message, cString(message, at + 5).next).text;
      if (statement) texts.push(named.get(statement) ?? statement);
    }
  }
  return texts;
}

type Stream = (message: Uint8Array, options?: unknown) => Promise<unknown>;
const prototype = PGlite.prototype as unknown as { execProtocolStream: Stream };
const original = prototype.execProtocolStream;
prototype.execProtocolStream = async function (this: unknown, message: Uint8Array, options?: unknown) {
  const texts = statementTexts(message);
  for (const text of texts) {
    counts.statements += 1;
    if (/^\s*begin\b/i.test(text)) counts.transactions += 1;
    if (keepTexts) {
      const key = text.replace(/\s+/g, ' ').slice(0, 300);
      counts.texts[key] = (counts.texts[key] ?? 0) + 1;
    }
  }
  const started = performance.now();
  const cpu = keepTexts ? process.cpuUsage() : undefined;
  try {
    return await original.call(this, message, options);
  } finally {
    counts.protocolMs += performance.now() - started;
    if (cpu) {
      const used = process.cpuUsage(cpu);
      const key = (texts[0] ?? '(no statement: parse, close)').replace(/\s+/g, ' ').slice(0, 300);
      counts.textMs[key] = (counts.textMs[key] ?? 0) + (used.user + used.system) / 1000;
    }
  }
};

// Written aside and renamed: the bench never reads half a file.
if (file)
  setInterval(() => {
    writeFileSync(`${file}.next`, JSON.stringify(counts));
    renameSync(`${file}.next`, file);
  }, 200).unref();

const profileFile = process.env.PGLITE_PROFILE_FILE;
if (profileFile) {
  let session: Session | undefined;
  process.on('SIGUSR2', () => {
    void (async () => {
      if (!session) {
        session = new Session();
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 500 });
        await session.post('Profiler.start');
        return;
      }
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(profileFile, JSON.stringify(profile));
      session.disconnect();
      session = undefined;
    })();
  });
}
