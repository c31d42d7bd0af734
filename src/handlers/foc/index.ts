import type { HandlerRegistration } from '../../contract/handlers';
import { checkActivatePortIn } from '../../domain/foc/activate';
import { ACTIVATE_PORT_IN_RECORDS } from '../../domain/foc/records';
import type { PortInDeps } from '../portin/deps';
import { createActivatePortIn } from './activate-port-in';

/** Activation on demand within the FOC date's window, on the port-in topic. */
export const createFocHandlers = (deps: PortInDeps): HandlerRegistration[] => [
  {
    domain: 'portin',
    commandRecord: ACTIVATE_PORT_IN_RECORDS.command,
    replyRecord: ACTIVATE_PORT_IN_RECORDS.reply,
    validate: (raw) => checkActivatePortIn(raw).problems,
    handle: createActivatePortIn(deps),
  },
];
