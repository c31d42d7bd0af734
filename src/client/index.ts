// The client library's entry point: the `wholesale-client` package (`npm run pack:client`), `import { WholesaleClient } from 'wholesale-client'`.

export { WholesaleClient, type WholesaleClientOptions, type CallOptions } from './wholesale-client';
export { WholesaleClientError, RequestTimeoutError, ServiceReplyError, InvalidCommandError, ClientClosedError } from './errors';
export { OPERATIONS, type OperationName, type OperationInput, type OperationReply } from './operations';
export { EventSubscription, EVENT_RECORDS, type ContractEvent, type KnownEvent, type UnknownEvent, type EventRecordName, type CloudEventAttributes, type SubscribeEventsOptions } from './events';
export { loadClientConfig, type ClientConfig } from './config';
export { ConfigError } from '../config/env';
export type { FieldProblem, ErrorCode } from '../contract/errors';
export type * from '../contract/types.generated';
