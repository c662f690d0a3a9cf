import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = 'v1';

/** AES-256-GCM for secrets that must be read back (workspace secrets sign SDK requests). */
export class SecretBox {
  readonly #key: Buffer;
  readonly #linkKey: Buffer;

  constructor(secretKey: string) {
    this.#key = Buffer.from(hkdfSync('sha256', secretKey, 'herald', 'workspace-secret-encryption', 32));
    this.#linkKey = Buffer.from(hkdfSync('sha256', secretKey, 'herald', 'signed-links', 32));
  }

  /** An HMAC-SHA256 tag (base64url) over `text`, for the links Herald signs (preference page, unsubscribe). */
  sign(text: string): string {
    return createHmac('sha256', this.#linkKey).update(text, 'utf8').digest('base64url');
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  decrypt(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('unrecognised ciphertext');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * What identifies a secret key without revealing it: derived with HKDF under a label of its own (never the
 * encryption key itself), stored by the database whose secrets the key seals (src/db/secret-key-check.ts).
 */
export const secretKeyFingerprint = (secretKey: string) =>
  Buffer.from(hkdfSync('sha256', secretKey, 'herald', 'secret-key-fingerprint', 16)).toString('hex');

/** Embedded storage without SECRET_KEY: one key is generated into the data folder, readable by its owner only. */
export function loadOrCreateSecretKey(dataDir: string): string {
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
