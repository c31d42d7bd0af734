import { ERROR_REPLY, type TopicRole } from '../../contract/topics';
import { BALANCE_COMMANDS, BILLING_EVENTS, balanceRecord as balance } from '../../domain/balance/records';
import { PORTIN_TOPOLOGY } from '../../domain/portin/records';
import { CREDIT_COMMANDS, CREDIT_EVENTS, RESERVATION_COMMANDS, RESERVATION_EVENTS, TRANSFER_COMMANDS, TRANSFER_EVENTS } from '../../domain/balance-operations/records';

/**
 * Which Avro records travel on which topic. Several record types share a topic, so each record is
 * registered under the TopicRecordNameStrategy subject `<topic>-<record full name>`. The AsyncAPI
 * document and the schema registration both derive from this table.
 */
export const TOPIC_RECORDS: Record<TopicRole, readonly string[]> = {
  portinCommands: PORTIN_TOPOLOGY.portinCommands,
  portinReplies: [...PORTIN_TOPOLOGY.portinReplies, ERROR_REPLY],
  balanceCommands: [...BALANCE_COMMANDS, ...RESERVATION_COMMANDS, ...CREDIT_COMMANDS, ...TRANSFER_COMMANDS].map(balance),
  balanceReplies: [...[...BALANCE_COMMANDS, ...RESERVATION_COMMANDS, ...CREDIT_COMMANDS, ...TRANSFER_COMMANDS].map((name) => balance(`${name}Reply`)), ERROR_REPLY],
  portinEvents: PORTIN_TOPOLOGY.portinEvents,
  balanceEvents: [...BILLING_EVENTS, ...RESERVATION_EVENTS, ...CREDIT_EVENTS, ...TRANSFER_EVENTS].map(balance),
  deadLetters: [],
  npRequests: PORTIN_TOPOLOGY.npRequests,
  npResponses: PORTIN_TOPOLOGY.npResponses,
};

export const subjectFor = (topic: string, recordName: string): string => `${topic}-${recordName}`;
