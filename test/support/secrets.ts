/**
 * Credentials by their shape: service tokens (hst_), API keys (hak_), workspace secrets (wss_) and
 * workspace keys (wsk_), each followed by its random part, and any Authorization value after its scheme.
 */
const CREDENTIAL = /\b(?:hst|hak|wss|wsk)_[A-Za-z0-9_-]{16,}|\b(?:Bearer|ServiceToken)\s+[A-Za-z0-9_-]{8,}/g;

/** Every credential-shaped string in the values given (log lines, rows), with where it was found. */
export function findCredentials(values: unknown[]): { index: number; match: string }[] {
  const found: { index: number; match: string }[] = [];
  values.forEach((value, index) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    for (const match of text.matchAll(CREDENTIAL)) found.push({ index, match: match[0] });
  });
  return found;
}

/** Throws naming the first log lines that carry a credential; run over a whole file's logs. */
export function assertNoCredentialsInLogs(logs: Record<string, unknown>[]) {
  const found = findCredentials(logs);
  if (found.length > 0) {
    const lines = found
      .slice(0, 3)
      .map(({ index, match }) => `${match.slice(0, 12)}… in ${JSON.stringify(logs[index]).slice(0, 300)}`);
    throw new Error(`${found.length} credential(s) reached the logs:\n${lines.join('\n')}`);
  }
}
