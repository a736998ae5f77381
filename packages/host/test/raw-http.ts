/** Raw loopback exchanges with the serve front: bytes in, status line and body out, nothing normalised. */
import { connect } from 'node:net';

/** A front that neither answers nor closes within this bound is a hang, reported as status null. */
export const EXCHANGE_WAIT_MS = 30_000;

export interface RawAnswer {
  /** The HTTP status, or null when the socket closed (or the bound passed) without a status line. */
  readonly status: number | null;
  readonly text: string;
  readonly body: string;
}

function parseAnswer(received: Buffer): RawAnswer {
  const text = received.toString('latin1');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  const bodyStart = text.indexOf('\r\n\r\n');
  return { status: status ? Number(status[1]) : null, text, body: bodyStart < 0 ? '' : text.slice(bodyStart + 4) };
}

/** Sends `request` on a fresh loopback connection and reads until the server closes it. */
export function rawExchange(port: number, request: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks)));
    };
    const timer = setTimeout(finish, EXCHANGE_WAIT_MS);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', finish);
    socket.on('close', finish);
  });
}

/** A GET of `target` (sent byte for byte) with our Host and Connection: close. */
export function rawGet(port: number, target: string, headers: readonly string[] = []): Promise<RawAnswer> {
  const lines = [`GET ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close', ...headers];
  return rawExchange(port, `${lines.join('\r\n')}\r\n\r\n`);
}
