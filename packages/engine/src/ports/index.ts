export {
  createDarwinPortReader,
  type DarwinPortOptions,
  joinLsofWithTable,
  LSOF_TCP_ARGS,
  LSOF_UDP_ARGS,
  type LsofSocket,
  parseLsofFields,
  parseLsofName,
  readDarwinPortMap,
} from './darwin-lsof.js';
export { createEntryLookup, describeListeners, type EntryLookup, type PortRow } from './describe.js';
export {
  executeFreePort,
  type FreePortOutcome,
  type FreePortResult,
  PORT_RELEASE_WAIT_MS,
} from './free-port.js';
export {
  type ByteOrder,
  hostByteOrder,
  isListeningSocket,
  type NetTableKind,
  parseHexAddress,
  parseProcNet,
  TCP_LISTEN_STATE,
  UDP_UNCONNECTED_STATE,
} from './linux-net.js';
export {
  createLinuxPortReader,
  LINUX_PORT_SOURCES,
  type LinuxPortSources,
  readLinuxPortMap,
  readListeningSockets,
  readSocketFds,
  socketFdsOf,
} from './linux-ports.js';
export {
  type CachedPortReaderOptions,
  createCachedLinuxPortReader,
  FULL_READ_INTERVAL_MS,
  type SocketFdReader,
} from './linux-ports-cached.js';
export {
  formatExpectedIdentities,
  type PinnedPlan,
  parseExpectedIdentity,
  pinFreePortPlan,
} from './pin-plan.js';
export {
  assertPort,
  type FreePortOptions,
  type FreePortPlan,
  type FreePortTarget,
  HIDDEN_SETTLE_MS,
  MAX_PORT,
  MIN_PORT,
  PortRangeError,
  planFreePort,
  SERVICE_MANAGER_COMMANDS,
} from './plan-free-port.js';
export { createPortReader, type PortReaderOptions } from './reader.js';
export * from './types.js';
