import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node's HTTP parser refuses before any route sees the request, and the answer each gets. */
function answerFor(code: string | undefined): { status: number; title: string; detail: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      title: 'Request Header Fields Too Large',
      detail: 'The request line and headers together are over 16 KB; send fewer or shorter filters.',
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, title: 'Request Timeout', detail: 'The request did not arrive in time.' };
  }
  return { status: 400, title: 'Bad Request', detail: 'The request is not valid HTTP.' };
}

/**
 * Answers a request the HTTP parser refuses (a URL over 16 KB, malformed HTTP) with a problem+json
 * body saying why, where Node would send the bare status line and no body.
 */
export function answerClientErrors(server: Server): Server {
  return server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A client gone, or an answer already on its way: nothing to say.
    const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, title, detail } = answerFor(error.code);
    const body = JSON.stringify({ type: 'about:blank', title, status, detail });
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
