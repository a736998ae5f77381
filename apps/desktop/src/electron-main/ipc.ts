/**
 * The main-side IPC registry: binds the plain router to ipcMain. With the preload, the only file
 * that touches Electron IPC. A dropped message (untrusted sender) gets no answer it can use.
 */
import { type BrowserWindow, type IpcMainInvokeEvent, ipcMain } from 'electron';
import type { IpcRouter, IpcSender } from '../node/ipc-router.js';

function senderOf(event: IpcMainInvokeEvent): IpcSender {
  const frame = event.senderFrame;
  return {
    webContentsId: event.sender.id,
    frameUrl: frame?.url ?? null,
    isMainFrame: frame !== null && frame !== undefined && frame === event.sender.mainFrame,
  };
}

export function registerIpc(router: IpcRouter, window: BrowserWindow): () => void {
  ipcMain.handle(router.requestChannel, async (event, payload: unknown) => {
    const routed = await router.handleRequest(senderOf(event), payload);
    if (routed.kind === 'dropped') {
      console.warn(`treewarden: dropped IPC request: ${routed.reason}`);
      throw new Error('refused');
    }
    return routed.reply;
  });
  const contents = window.webContents;
  const stopEvents = router.forwardEvents(contents.id, (channel, message) => {
    if (!contents.isDestroyed()) contents.send(channel, message);
  });
  return () => {
    stopEvents();
    ipcMain.removeHandler(router.requestChannel);
  };
}
