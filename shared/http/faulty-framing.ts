/**
 * RFC 9112 §6.1: Transfer-Encoding came with HTTP/1.1, so an HTTP/1.0 message carrying it may have crossed a hop
 * that passed the chunks on without understanding them; its framing is to be treated as faulty, even with a
 * Content-Length, and the connection closed once the message is answered, so that nothing left of it is ever read
 * as a next request. Node keeps such a connection open when the client asks for keep-alive.
 */
import type { RequestListener } from 'node:http';

/** `listener`, answering as it does, on a connection closed after the answer to such a message. */
export function closingFaultyFraming(listener: RequestListener): RequestListener {
  return (req, res) => {
    if (req.httpVersion === '1.0' && req.headers['transfer-encoding'] !== undefined) res.shouldKeepAlive = false;
    listener(req, res);
  };
}
