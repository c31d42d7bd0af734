// Avro record full names of activation on demand (schemas/portin/ActivatePortIn*, schemas/np/ActivatePortRequest),
// listed with the port-in records of their topics (src/domain/portin/records.ts).

export const ACTIVATE_PORT_IN_RECORDS = { command: 'wholesale.portin.v1.ActivatePortIn', reply: 'wholesale.portin.v1.ActivatePortInReply' } as const;

/** np.portin.requests.v1: cut the confirmed port over now; answered by ActivationComplete. */
export const ACTIVATE_PORT_REQUEST_RECORD = 'np.portin.v1.ActivatePortRequest';

export const FOC_TOPOLOGY = {
  portinCommands: [ACTIVATE_PORT_IN_RECORDS.command],
  portinReplies: [ACTIVATE_PORT_IN_RECORDS.reply],
  npRequests: [ACTIVATE_PORT_REQUEST_RECORD],
} as const;
