export { type CgroupContainer, type ContainerRuntime, containerFromCgroup } from './cgroup-id.js';
export {
  type ContainerEvidence,
  type ContainerEvidenceKind,
  type ContainerEvidenceStrength,
  containerEvidenceStrength,
  isInsideDirectory,
} from './container-evidence.js';
export {
  type ContainerInfo,
  ENGINE_REQUEST_TIMEOUT_MS,
  EngineApiError,
  engineRequest,
  inspectContainer,
  killContainer,
  listContainers,
  parseListedContainer,
  stopContainer,
} from './engine-api.js';
export {
  type ContainerAction,
  type ContainerEvent,
  type EventStream,
  type EventStreamOptions,
  followContainerEvents,
  parseContainerEvent,
} from './engine-events.js';
export { engineSocketCandidates, findEngineSocket } from './engine-socket.js';
export {
  type CgroupReader,
  ContainerResolver,
  type ContainerResolverOptions,
  type ProcessContainer,
  shimDescendants,
} from './process-containers.js';
