import type { Logger } from 'pino';
import type { CommandTransport } from '../../../src/adapters/kafka/command-transport';

/** What a candidate's transport needs to connect (the trial's subset of the service's connection settings). */
export interface TrialTransportOptions {
  brokers: string[];
  clientId: string;
  log: Logger;
  sasl?: { mechanism: string; username: string; password: string };
  tls?: Record<string, unknown>;
  /** Static membership (KIP-345): the member keeps its partitions across a restart within the session timeout. */
  groupInstanceId?: string;
}

/** The service's transport on a candidate: the group member and the sender the batch loop runs on. */
export type TrialTransport = Pick<CommandTransport, 'sender' | 'close'> & {
  consumer: Omit<CommandTransport['consumer'], 'membership'>;
};
