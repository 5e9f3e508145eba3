export { classifyAnswer, isJsonBody, isMeteredQuotaAnswer } from "./classifyError.ts";
export {
  GATEWAY_ERROR_KINDS,
  GatewayError,
  type GatewayErrorKind,
  isGatewayError,
  TRANSIENT_GATEWAY_ERROR_KINDS,
} from "./errors.ts";
export {
  createGatewayClient,
  createUnconfiguredGatewayClient,
  DEFAULT_GATEWAY_TIMEOUT_MS,
  type GatewayClient,
  type GatewayClientOptions,
} from "./gatewayClient.ts";
export { MAX_PROMPT_PAGE_SIZE, type ProjectEngineClient } from "./projectEngineClient.ts";
export { isPublishedStatus, PUBLISH_STATUSES, type PublishStatus } from "./projectStatus.ts";
export type * from "./types.ts";
export type { UserManagerClient } from "./userManagerClient.ts";
export { isReadyStatus, isTerminalStatus, normaliseStatus } from "./workspaceStatus.ts";
