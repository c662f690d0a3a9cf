import { createHash, createHmac } from 'node:crypto';

/** Signs a request the way the official backend SDKs do (written independently of the server's code). */
export function signedHeaders(input: {
  key: string;
  secret: string;
  method: string;
  url: string;
  body?: string;
  contentType?: string;
  date?: string;
}): Record<string, string> {
  const contentType = input.contentType ?? 'application/json; charset=utf-8';
  const date = input.date ?? new Date().toUTCString();
  const md5 = input.body ? createHash('md5').update(input.body).digest('hex') : '';
  const signature = createHmac('sha256', input.secret)
    .update([input.method, md5, contentType, date, input.url].join('\n'))
    .digest('base64');
  return { authorization: `${input.key}:${signature}`, 'content-type': contentType, date };
}

/**
 * A Twilio webhook's `X-Twilio-Signature`, made as Twilio documents it
 * (https://www.twilio.com/docs/usage/security#validating-requests), independently of Herald's check: the full URL,
 * then each POST parameter's name and value sorted by name, HMAC-SHA1 with the auth token, in base64.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>) {
  let data = url;
  for (const name of Object.keys(params).sort()) data += `${name}${params[name]}`;
  return createHmac('sha1', Buffer.from(authToken, 'utf-8')).update(Buffer.from(data, 'utf-8')).digest('base64');
}
