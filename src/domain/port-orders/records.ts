// Avro record full names of port orders (schemas/portin): commands, replies and the order's event, on the
// port-in topics beside the single-number commands (src/domain/portin/records.ts lists them in its topology).

const portin = (name: string): string => `wholesale.portin.v1.${name}`;

export const PORT_ORDER_COMMAND_RECORDS = {
  CreatePortOrder: { command: portin('CreatePortOrder'), reply: portin('CreatePortOrderReply') },
  QueryPortOrder: { command: portin('QueryPortOrder'), reply: portin('QueryPortOrderReply') },
  CancelPortOrder: { command: portin('CancelPortOrder'), reply: portin('CancelPortOrderReply') },
  CheckPortOrderEligibility: { command: portin('CheckPortOrderEligibility'), reply: portin('CheckPortOrderEligibilityReply') },
} as const;

export const PORT_ORDER_EVENT_RECORD = portin('PortOrderEvent');

export const PORT_ORDER_TOPOLOGY = {
  portinCommands: Object.values(PORT_ORDER_COMMAND_RECORDS).map((r) => r.command),
  portinReplies: Object.values(PORT_ORDER_COMMAND_RECORDS).map((r) => r.reply),
  portinEvents: [PORT_ORDER_EVENT_RECORD],
} as const;
