import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ADMIN_REQUEST_LINE } from '../runtime/admin-process';
import { stylesheetHrefs } from './admin-stylesheets';

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

const stylesheets = stylesheetHrefs('/admin/assets')
  .map((href) => `<link rel="stylesheet" href="${href}">`)
  .join('');

/** The admin's error page, as plain as the parser's answer must be (no template: nothing of the request was read). */
const errorPage = (status: number, title: string, detail: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<title>${status} ${title} – Rider equipment</title>${stylesheets}</head>` +
  `<body><main class="page"><h1>${title}</h1><p>${detail}</p><p><a href="/admin">Back to the overview</a></p></main></body></html>`;

/**
 * Answers a request the HTTP parser refuses (a URL over 16 KB, malformed HTTP) with a body saying why
 * (problem+json, or a page for the admin's), where Node would send the bare status line and no body.
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
    // A supervisor's browser (a request for the admin pages, as far as the parser read) gets a page.
    const head = (error as { rawPacket?: Buffer }).rawPacket?.toString('latin1', 0, 32) ?? '';
    const page = ADMIN_REQUEST_LINE.test(head);
    const body = page ? errorPage(status, title, detail) : JSON.stringify({ type: 'about:blank', title, status, detail });
    const type = page ? 'text/html; charset=utf-8' : 'application/problem+json';
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
