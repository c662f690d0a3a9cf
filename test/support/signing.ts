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
