import { writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';

/**
 * A preload for a Herald process on embedded storage (`node --import ./dist/bench/pglite-statements.js`):
 * counts the statements PGlite runs (each Parse or simple Query message, whoever sends it: Kysely,
 * pg-boss), the transactions (BEGIN), and the process time spent inside PGlite's protocol calls,
 * writing them to PGLITE_STATEMENTS_FILE every 200 ms, with the statement texts by count when
 * PGLITE_STATEMENTS_TEXTS=1. Measurement only: not part of Herald.
 */

const file = process.env.PGLITE_STATEMENTS_FILE;
const keepTexts = process.env.PGLITE_STATEMENTS_TEXTS === '1';
const counts = { statements: 0, transactions: 0, protocolMs: 0, texts: {} as Record<string, number> };
const decoder = new TextDecoder();

function statementText(message: Uint8Array): string | undefined {
  const kind = message[0];
  if (kind === 0x51 /* Q */) return decoder.decode(message.subarray(5, message.indexOf(0, 5)));
  if (kind === 0x50 /* P */) {
    const nameEnd = message.indexOf(0, 5);
    return decoder.decode(message.subarray(nameEnd + 1, message.indexOf(0, nameEnd + 1)));
  }
  return undefined;
}

type Stream = (message: Uint8Array, options?: unknown) => Promise<unknown>;
const prototype = PGlite.prototype as unknown as { execProtocolStream: Stream };
const original = prototype.execProtocolStream;
prototype.execProtocolStream = async function (this: unknown, message: Uint8Array, options?: unknown) {
  const text = statementText(message);
  if (text !== undefined) {
    counts.statements += 1;
    if (/^\s*begin\b/i.test(text)) counts.transactions += 1;
    if (keepTexts) {
      const key = text.replace(/\s+/g, ' ').slice(0, 300);
      counts.texts[key] = (counts.texts[key] ?? 0) + 1;
    }
  }
  const started = performance.now();
  try {
    return await original.call(this, message, options);
  } finally {
    counts.protocolMs += performance.now() - started;
  }
};

if (file) setInterval(() => writeFileSync(file, JSON.stringify(counts)), 200).unref();
