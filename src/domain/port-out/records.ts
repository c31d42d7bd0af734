// Avro record full names of the port-out contract (schemas/portin, schemas/np): the partner's commands and
// event beside the port-in ones (their namespaces: src/domain/portin/records.ts, which lists these in its
// topology), the NP records on the NP topics.

const PORTIN_NAMESPACE = 'wholesale.portin.v1';
const NP_NAMESPACE = 'np.portin.v1';

const portin = (name: string): string => `${PORTIN_NAMESPACE}.${name}`;
const np = (name: string): string => `${NP_NAMESPACE}.${name}`;

export const PORTOUT_COMMAND_RECORDS = {
  AnswerPortOut: { command: portin('AnswerPortOut'), reply: portin('AnswerPortOutReply') },
  QueryPortOut: { command: portin('QueryPortOut'), reply: portin('QueryPortOutReply') },
} as const;

export const PORTOUT_EVENT_RECORD = portin('PortOutEvent');

/** np.portin.responses.v1: what the NP application tells of a port-out. */
export const PORTOUT_NP_RESPONSE_RECORDS = {
  PortOutRequested: np('PortOutRequested'),
  PortOutCompleted: np('PortOutCompleted'),
  PortOutCancelled: np('PortOutCancelled'),
} as const;

/** np.portin.requests.v1: the service's decision on a port-out. */
export const PORTOUT_DECISION_RECORD = np('PortOutDecision');

export const isPortOutResponse = (recordName: string): boolean => Object.values<string>(PORTOUT_NP_RESPONSE_RECORDS).includes(recordName);

export const PORTOUT_TOPOLOGY = {
  portinCommands: Object.values(PORTOUT_COMMAND_RECORDS).map((r) => r.command),
  portinReplies: Object.values(PORTOUT_COMMAND_RECORDS).map((r) => r.reply),
  portinEvents: [PORTOUT_EVENT_RECORD],
  npRequests: [PORTOUT_DECISION_RECORD],
  npResponses: Object.values(PORTOUT_NP_RESPONSE_RECORDS),
} as const;
