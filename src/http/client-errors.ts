import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody, HttpError } from '../errors.js';

/** What Node's HTTP parser refused, in words a client can act on. */
function refusalOf(code: string | undefined): HttpError {
  if (code === 'HPE_HEADER_OVERFLOW') return new HttpError(431, 'the request headers are too large');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new HttpError(408, 'the request took too long to arrive; the connection is closed');
  if (code === 'HPE_INVALID_TRANSFER_ENCODING' || code === 'HPE_UNEXPECTED_CONTENT_LENGTH')
    return new HttpError(400, 'the Transfer-Encoding is invalid or conflicts with Content-Length; send one of them');
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return new HttpError(413, 'the request has too many chunk extensions');
  if (code === 'HPE_INVALID_METHOD') return new HttpError(400, 'the request method is not valid HTTP');
  return new HttpError(400, 'the request is not valid HTTP/1.1');
}

/**
 * Requests Node's HTTP parser refuses never reach Fastify's routing, so they cannot know their
 * route's error shape: they get the full shape (docs/spec/interface.md, Errors), like every unrouted error,
 * instead of Fastify's own `{"error","message","statusCode"}`. The connection is then closed, as
 * Node does: the parser's state is unknown.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const refusal = refusalOf(error.code);
    const body = JSON.stringify(errorBody(refusal, 'full'));
    socket.write(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
