import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { FULL_ERROR_KEYS, keysOf } from '../support/load.js';

/** Sends raw bytes, as a broken or hostile client would, and reads the answer until the server closes. */
async function raw(port: number, request: string): Promise<{ status: number; headers: string; body: string }> {
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('utf8')));
    socket.on('close', () => resolve(data));
    socket.on('error', (error) => (data ? resolve(data) : reject(error)));
    socket.write(request);
  });
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head, body };
}

describe("Node's own refusals answer in Herald's error shape", () => {
  const t = useTestApp();
  const port = async () => {
    if (!t().app.server.listening) await t().app.listen({ port: 0, host: '127.0.0.1' });
    return (t().app.server.address() as { port: number }).port;
  };

  it('431 for headers over the limit', async () => {
    const response = await raw(
      await port(),
      `GET /v1/user/x/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(response.status).toBe(431);
    expect(response.headers).toMatch(/content-type: application\/json/i);
    const body = JSON.parse(response.body);
    expect(keysOf(body)).toEqual(FULL_ERROR_KEYS);
    expect(body).toEqual({
      code: 431,
      error_code: 'bad_request',
      type: 'BadRequest',
      message: 'the request headers are too large',
      detail: null,
    });
  });

  it('400 for Content-Length together with Transfer-Encoding', async () => {
    const response = await raw(
      await port(),
      'POST /event/ HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      code: 400,
      error_code: 'validation_error',
      type: 'ValidationError',
      message: 'the Transfer-Encoding is invalid or conflicts with Content-Length; send one of them',
      detail: null,
    });
  });

  it('400 for what is not HTTP at all, and for an unknown method', async () => {
    for (const request of ['HELLO\r\n\r\n', 'BREW /v1/user/x/ HTTP/1.1\r\nHost: x\r\n\r\n']) {
      const response = await raw(await port(), request);
      expect(response.status, request).toBe(400);
      const body = JSON.parse(response.body);
      expect(keysOf(body)).toEqual(FULL_ERROR_KEYS);
      expect(body.code).toBe(400);
    }
  });

  it('keeps serving after each refusal', async () => {
    const response = await fetch(`http://127.0.0.1:${await port()}/healthz`);
    expect(response.status).toBe(200);
  });
});
