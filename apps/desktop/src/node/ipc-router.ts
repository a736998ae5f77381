/**
 * The main-side IPC handler registry, as plain Node (no Electron import) so it is tested without
 * the runtime. Messages from a sender that is not our window's main frame showing our file are
 * dropped before anything is parsed; a trusted sender's payload is parsed with the protocol's
 * `parseRequest` (the renderer is untrusted input too) and answered with a Reply.
 */
import {
  type HostEvent,
  IPC_CHANNEL_PREFIX,
  IPC_EVENT_CHANNEL,
  IPC_REQUEST_CHANNEL,
  parseRequest,
  type Reply,
} from '@treewarden/protocol';
import { isRendererUrl } from './navigation-policy.js';

/** What the router knows about who sent a message (from Electron's IpcMainInvokeEvent). */
export interface IpcSender {
  readonly webContentsId: number;
  /** The sending frame's URL; null when the frame is gone. */
  readonly frameUrl: string | null;
  readonly isMainFrame: boolean;
}

/** The part of the engine host the router needs. */
export interface RoutedHost {
  handle(command: unknown, clientId?: string): Promise<{ ok: true; result: unknown } | { ok: false; error: string }>;
  onEvent(listener: (event: HostEvent) => void): () => void;
  dropClient(clientId: string): void;
}

export type RouteResult =
  | { readonly kind: 'reply'; readonly reply: Reply }
  | { readonly kind: 'dropped'; readonly reason: string };

export interface IpcRouter {
  readonly requestChannel: string;
  readonly eventChannel: string;
  handleRequest(sender: IpcSender, payload: unknown): Promise<RouteResult>;
  /** Pushes every host event to `send` (our window's webContents) until the returned function runs. */
  forwardEvents(webContentsId: number, send: (channel: string, message: unknown) => void): () => void;
}

function assertOwnChannel(channel: string): string {
  if (!channel.startsWith(IPC_CHANNEL_PREFIX))
    throw new Error(`IPC channel "${channel}" lacks the "${IPC_CHANNEL_PREFIX}" prefix`);
  return channel;
}

/** One client id per window, so a closed window's system watch is forgotten. */
export function clientIdOf(webContentsId: number): string {
  return `window-${webContentsId}`;
}

export function createIpcRouter(host: RoutedHost, isTrustedSender: (sender: IpcSender) => boolean): IpcRouter {
  return {
    requestChannel: assertOwnChannel(IPC_REQUEST_CHANNEL),
    eventChannel: assertOwnChannel(IPC_EVENT_CHANNEL),
    async handleRequest(sender, payload) {
      if (!isTrustedSender(sender)) {
        return {
          kind: 'dropped',
          reason: `untrusted sender (webContents ${sender.webContentsId}, ${sender.frameUrl ?? 'no frame'})`,
        };
      }
      const parsed = parseRequest(payload);
      if (!parsed.ok) return { kind: 'reply', reply: { kind: 'reply', id: 0, ok: false, error: parsed.error } };
      const { id, command } = parsed.value;
      const result = await host.handle(command, clientIdOf(sender.webContentsId));
      return {
        kind: 'reply',
        reply: result.ok
          ? { kind: 'reply', id, ok: true, result: result.result }
          : { kind: 'reply', id, ok: false, error: result.error },
      };
    },
    forwardEvents(webContentsId, send) {
      const unsubscribe = host.onEvent((event) => send(IPC_EVENT_CHANNEL, event));
      return () => {
        unsubscribe();
        host.dropClient(clientIdOf(webContentsId));
      };
    },
  };
}

/**
 * Trusted = our window's webContents, its main frame (not an iframe), showing exactly our
 * renderer file (the query and hash may vary).
 */
export function createTrustedSenderCheck(
  ownWebContentsId: () => number | null,
  rendererFileUrl: string,
): (sender: IpcSender) => boolean {
  return (sender) =>
    sender.webContentsId === ownWebContentsId() &&
    sender.isMainFrame &&
    isRendererUrl(sender.frameUrl, rendererFileUrl);
}
