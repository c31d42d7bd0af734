import type { TopicRole } from '../handlers/types';

/**
 * Which Avro records travel on which topic. Several record types share a topic, so each record is
 * registered under the TopicRecordNameStrategy subject `<topic>-<record full name>`. The AsyncAPI
 * document and the schema registration both derive from this table.
 */
export const ERROR_REPLY = 'wholesale.common.v1.ErrorReply';

const portin = (name: string) => `wholesale.portin.v1.${name}`;

export const TOPIC_RECORDS: Record<TopicRole, readonly string[]> = {
  portinCommands: [portin('CheckPortInEligibility')],
  portinReplies: [portin('CheckPortInEligibilityReply'), ERROR_REPLY],
  balanceCommands: [],
  balanceReplies: [ERROR_REPLY],
  portinEvents: [],
  balanceEvents: [],
  deadLetters: [],
  npRequests: [],
  npResponses: [],
};

/** Command topics and where their replies go by default. */
export const COMMAND_TOPICS = {
  portinCommands: { domain: 'portin', replies: 'portinReplies' },
  balanceCommands: { domain: 'balance', replies: 'balanceReplies' },
} as const satisfies Partial<Record<TopicRole, { domain: string; replies: TopicRole }>>;

export type CommandTopicRole = keyof typeof COMMAND_TOPICS;

export const subjectFor = (topic: string, recordName: string): string => `${topic}-${recordName}`;
