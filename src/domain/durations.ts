/**
 * Durations as the workflow tree writes them (docs/spec/engine.md §3, ours): `XdXhXmXs`, any part
 * optional, no padding required (`30s`, `1h30m`, `00d00h01m00s`). A dynamic value may also be a
 * number of seconds.
 */

const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** Milliseconds, or undefined when the value is not a duration. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const match = DURATION.exec(text);
  if (!match) return undefined;
  const [, d, h, m, s] = match.map((part) => Number(part ?? 0));
  return (((d! * 24 + h!) * 60 + m!) * 60 + s!) * 1000;
}
