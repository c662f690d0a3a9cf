import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A browser's side of web push: a push subscription (its P-256 key pair and auth secret) and the decryption of an
 * `aes128gcm` message sent to it (RFC 8188 and RFC 8291), written from the RFCs rather than with web-push, so the
 * provider's encryption is checked by an independent reader.
 */
export class WebPushSubscriber {
  readonly #ecdh = createECDH('prime256v1');
  readonly #auth = randomBytes(16);
  readonly publicKey: Buffer;

  constructor(readonly endpoint: string) {
    this.publicKey = this.#ecdh.generateKeys();
  }

  get subscription() {
    return {
      endpoint: this.endpoint,
      keys: { p256dh: this.publicKey.toString('base64url'), auth: this.#auth.toString('base64url') },
    };
  }

  /** The plaintext of a single-record aes128gcm body. */
  decrypt(body: Buffer): string {
    const salt = body.subarray(0, 16);
    const idLength = body.readUInt8(20);
    const serverPublicKey = body.subarray(21, 21 + idLength);
    const record = body.subarray(21 + idLength);

    const shared = this.#ecdh.computeSecret(serverPublicKey);
    const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), this.publicKey, serverPublicKey]);
    const ikm = Buffer.from(hkdfSync('sha256', shared, this.#auth, keyInfo, 32));
    const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
    const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));

    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    // The last record ends with the delimiter 0x02, then zero padding.
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end--;
    if (padded[end] !== 2) throw new Error('the record does not end with the last-record delimiter');
    return padded.subarray(0, end).toString('utf8');
  }
}
