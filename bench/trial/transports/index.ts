import type { CommandConsumerSettings } from '../../../src/adapters/kafka/command-transport';
import type { TrialTransport, TrialTransportOptions } from './trial-transport';

/** A candidate's transport by name; each is loaded only when asked for (its client lives in .trial/clients). */
export async function connectTrialTransport(client: string, options: TrialTransportOptions, settings: CommandConsumerSettings): Promise<TrialTransport> {
  switch (client) {
    case 'platformatic':
      return (await import('./platformatic')).connectPlatformaticTransport(options, settings);
    case 'confluent':
      return (await import('./confluent')).connectConfluentTransport(options, settings);
    default:
      throw new Error(`FLOOR_CLIENT must be kafkajs, platformatic or confluent, not ${client}`);
  }
}
