/**
 * Answers one plain HTTP request. The page shell (index.html) and the hashed assets hold no
 * secret: the page is served without a token so that a reload (the token then lives in the tab's
 * sessionStorage, not the URL) and the launch page (token in the fragment) work, but a token that
 * is given and wrong is refused, so a stale URL says what is wrong. The WebSocket, which is the
 * engine, always needs the token. Every decision uses the one parsed target (request-target.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TOKEN_QUERY_PARAM } from '@treewarden/protocol';
import { parseRequestTarget, type RequestTarget } from './request-target.js';
import { hasSingleHostHeader, isAllowedHost, isAllowedOrigin, isValidToken, securityHeaders } from './security.js';
import { INDEX_FILE, missingRendererPage, readIndexPage, readStaticFile, type StaticFile } from './static-files.js';

export interface HttpContext {
  readonly port: number;
  readonly token: string;
  readonly rendererDir: string;
}

interface HttpAnswer {
  readonly status: number;
  readonly body: Buffer;
  readonly contentType: string;
  readonly cacheControl: string;
}

function refusal(status: number, message: string): HttpAnswer {
  return {
    status,
    body: Buffer.from(`${message}\n`),
    contentType: 'text/plain; charset=utf-8',
    cacheControl: 'no-store',
  };
}

function found(file: StaticFile, isPage: boolean): HttpAnswer {
  return {
    status: 200,
    body: file.body,
    contentType: file.contentType,
    cacheControl: isPage ? 'no-store' : 'public, max-age=3600',
  };
}

export function isPagePath(path: string): boolean {
  return path === '/' || path.toLowerCase() === `/${INDEX_FILE}`;
}

function answerPage(target: RequestTarget, context: HttpContext): HttpAnswer {
  const given = target.query.getAll(TOKEN_QUERY_PARAM);
  if (given.length > 0 && !(given.length === 1 && isValidToken(context.token, given[0]))) {
    return refusal(401, 'wrong token: open the exact URL treewarden serve printed');
  }
  return found(readIndexPage(context.rendererDir) ?? missingRendererPage(context.rendererDir), true);
}

/** Decides the answer to one HTTP request; the checks run in order, the first failure answers. */
export function answerHttp(request: IncomingMessage, context: HttpContext): HttpAnswer {
  const { host, origin } = request.headers;
  if (!hasSingleHostHeader(request.rawHeaders)) return refusal(400, 'exactly one Host header is required');
  if (!isAllowedHost(context.port, host)) return refusal(421, 'unknown Host: use the URL treewarden serve printed');
  if (origin !== undefined && !isAllowedOrigin(context.port, host, origin)) {
    return refusal(403, 'cross-origin request refused');
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return refusal(405, 'only GET is served');
  const parsed = parseRequestTarget(request.url);
  if (!parsed.ok) return refusal(400, `bad request target: ${parsed.reason}`);
  if (isPagePath(parsed.target.path)) return answerPage(parsed.target, context);
  const file = readStaticFile(context.rendererDir, parsed.target.segments);
  return file === null ? refusal(404, 'not found') : found(file, false);
}

export function handleHttp(request: IncomingMessage, response: ServerResponse, context: HttpContext): void {
  const answer = answerHttp(request, context);
  response.writeHead(answer.status, {
    ...securityHeaders(context.port),
    'Content-Type': answer.contentType,
    'Cache-Control': answer.cacheControl,
  });
  response.end(request.method === 'HEAD' ? undefined : answer.body);
}
