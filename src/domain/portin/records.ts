// Avro record full names of port-in and of the number-portability gateway; their schemas are in
// schemas/portin and schemas/np. The topology (src/adapters/registry/topology.ts) lists them per topic role;
// the port-out and port-order records (src/domain/port-out/records.ts, src/domain/port-orders/records.ts)
// share these topics and are listed with them.

import { FOC_TOPOLOGY } from '../foc/records';
import { PORTOUT_TOPOLOGY } from '../port-out/records';
import { PORT_ORDER_TOPOLOGY } from '../port-orders/records';

export const PORTIN_NAMESPACE = 'wholesale.portin.v1';
export const NP_NAMESPACE = 'np.portin.v1';

const portin = (name: string): string => `${PORTIN_NAMESPACE}.${name}`;
const np = (name: string): string => `${NP_NAMESPACE}.${name}`;

export const PORTIN_COMMAND_RECORDS = {
  CheckPortInEligibility: { command: portin('CheckPortInEligibility'), reply: portin('CheckPortInEligibilityReply') },
  CreatePortIn: { command: portin('CreatePortIn'), reply: portin('CreatePortInReply') },
  UpdatePortIn: { command: portin('UpdatePortIn'), reply: portin('UpdatePortInReply') },
  CancelPortIn: { command: portin('CancelPortIn'), reply: portin('CancelPortInReply') },
  QueryPortIn: { command: portin('QueryPortIn'), reply: portin('QueryPortInReply') },
} as const;

export const PORTIN_EVENT_RECORD = portin('PortInActivationEvent');

/** np.portin.requests.v1: what the service asks of the NP application. */
export const NP_REQUEST_RECORDS = {
  submit: np('SubmitPortRequest'),
  supplement: np('SupplementPortRequest'),
  cancel: np('CancelPortRequest'),
} as const;

/** np.portin.responses.v1: what the NP application answers; the record's short name is the lifecycle trigger. */
export const NP_RESPONSE_RECORDS = {
  OrderIdAssigned: np('OrderIdAssigned'),
  PortConfirmed: np('PortConfirmed'),
  PortDelayed: np('PortDelayed'),
  ResolutionRequired: np('ResolutionRequired'),
  PortRejected: np('PortRejected'),
  ActivationComplete: np('ActivationComplete'),
  CancelConfirmed: np('CancelConfirmed'),
  CancelRefused: np('CancelRefused'),
} as const;

/** Record names per topic role, for the topology table. */
export const PORTIN_TOPOLOGY = {
  portinCommands: [...Object.values(PORTIN_COMMAND_RECORDS).map((r) => r.command), ...FOC_TOPOLOGY.portinCommands, ...PORTOUT_TOPOLOGY.portinCommands, ...PORT_ORDER_TOPOLOGY.portinCommands],
  portinReplies: [...Object.values(PORTIN_COMMAND_RECORDS).map((r) => r.reply), ...FOC_TOPOLOGY.portinReplies, ...PORTOUT_TOPOLOGY.portinReplies, ...PORT_ORDER_TOPOLOGY.portinReplies],
  portinEvents: [PORTIN_EVENT_RECORD, ...PORTOUT_TOPOLOGY.portinEvents, ...PORT_ORDER_TOPOLOGY.portinEvents],
  npRequests: [...Object.values(NP_REQUEST_RECORDS), ...FOC_TOPOLOGY.npRequests, ...PORTOUT_TOPOLOGY.npRequests],
  npResponses: [...Object.values(NP_RESPONSE_RECORDS), ...PORTOUT_TOPOLOGY.npResponses],
} as const;
