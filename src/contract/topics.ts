// The topics of the message contract by role, and their default names. The configuration maps each role
// to a real topic name (TOPIC_* variables); asyncapi.yaml documents them.

export type TopicRole = 'portinCommands' | 'portinReplies' | 'balanceCommands' | 'balanceReplies' | 'portinEvents' | 'balanceEvents' | 'deadLetters' | 'npRequests' | 'npResponses';

export type Domain = 'portin' | 'balance';

export const DEFAULT_TOPIC_NAMES: Readonly<Record<TopicRole, string>> = {
  portinCommands: 'wholesale.portin.commands.v1',
  portinReplies: 'wholesale.portin.replies.v1',
  balanceCommands: 'wholesale.balance.commands.v1',
  balanceReplies: 'wholesale.balance.replies.v1',
  portinEvents: 'wholesale.portin.events.v1',
  balanceEvents: 'wholesale.balance.events.v1',
  deadLetters: 'wholesale.commands.dlq.v1',
  npRequests: 'np.portin.requests.v1',
  npResponses: 'np.portin.responses.v1',
};

/** Command topics and where their replies go by default. */
export const COMMAND_TOPICS = {
  portinCommands: { domain: 'portin', replies: 'portinReplies' },
  balanceCommands: { domain: 'balance', replies: 'balanceReplies' },
} as const satisfies Partial<Record<TopicRole, { domain: Domain; replies: TopicRole }>>;

export type CommandTopicRole = keyof typeof COMMAND_TOPICS;

/** The record every failed command is answered with, on the reply topic of its domain. */
export const ERROR_REPLY = 'wholesale.common.v1.ErrorReply';
